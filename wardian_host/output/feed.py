"""Feeds one agent's output sources to its provider's parser, and its events on.

The sources of one launch are its PTY and the telemetry the provider names in
`approval_source`: files, directories, local event streams, commands, each followed by
a `wardian_host.output.followers` follower. They are asked for at launch and again
whenever a parser says its sources changed; a source still named stays open.

Each source has its own parser (`SourceParser`, with the provider's own state). A
parser that asks to be called again after a quiet delay gets one timer (replaced by
the next request); one that asks for the screen gets one look at it, brought up to
date in slices between the loop's other work, and one agent's look at a time: looks
of many agents at once would each run a slice in the same turn of the loop, holding
it for all of them (50 agents starting at once held it for seconds). PTY output
arriving in a flood is coalesced into one parser call per few milliseconds; output
after a pause is parsed at once, and arms no timer. A `ready`
is held while a source that `holds_ready` has not spoken yet (at most
`READY_HOLD_SECONDS`). Everything of a launch lives in its `ParserSession`; once
closed, late output, timers, looks and lines of that launch are dropped.

A launch's file and folder sources tell their read positions to the session's
`PositionBook` as they read; a host adopting the launch after a restart or a crash opens
them at the positions recorded there, its parsers reading again what the previous host
read (events dropped) and the rest as new (`wardian_core.telemetry_positions`).
"""

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from wardian_core.errors import WardianError
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import PTY_SOURCE, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.telemetry_positions import FilePosition, FolderPosition, position_key
from wardian_host.output.followers import Follower, open_follower, position_of
from wardian_host.providers.manager import Plugins
from wardian_host.providers.source_parser import SourceParser

log = logging.getLogger(__name__)

PARSE_WINDOW_SECONDS = 0.005
# A screen look replays the output since the last one; a parser asking again sooner waits.
SCREEN_LOOK_SPACING_SECONDS = 0.1
# A source that holds ready and never speaks (its server refuses Wardian) must not leave the
# agent starting for ever: ready is let through after this long, and the silence logged.
READY_HOLD_SECONDS = 20.0

EventHandler = Callable[[ProviderEvent], None]
ScreenLook = Callable[[], Awaitable[ScreenSnapshot]]


class PositionBook(Protocol):
    """Where a launch's telemetry read positions are kept, by `position_key`."""

    def saved(self, key: str) -> FilePosition | FolderPosition | None: ...

    def record(self, key: str, position: FilePosition | FolderPosition) -> None: ...


@dataclass(eq=False)
class _Source:
    parser: SourceParser
    follower: Follower | None = None
    quiet_timer: asyncio.TimerHandle | None = None

    def close(self) -> None:
        if self.quiet_timer is not None:
            self.quiet_timer.cancel()
            self.quiet_timer = None
        if self.follower is not None:
            self.follower.close()
            self.follower = None


@dataclass(eq=False)
class ParserSession:
    """One launch of one agent, as its provider's parsers see it."""

    on_event: EventHandler
    # The launch's context; carries the provider session id once an event made it known.
    ctx: SpawnContext
    look_at_screen: ScreenLook | None = None
    sources: dict[tuple[Any, ...], _Source] = field(default_factory=dict)
    pty: _Source | None = None
    # PTY output waiting for the parser while a flood is coalesced.
    backlog: bytearray = field(default_factory=bytearray)
    window: asyncio.TimerHandle | None = None
    # When the PTY's output was last parsed (the loop's clock): a window runs from there.
    parsed_at: float = float("-inf")
    screen_look: asyncio.Task[None] | None = None
    look_again: bool = False
    # Sources that hold ready and have not delivered a line yet; the ready they hold.
    unheard: set[tuple[Any, ...]] = field(default_factory=set)
    held_ready: ProviderEvent | None = None
    ready_timer: asyncio.TimerHandle | None = None
    open: bool = False
    # Told how many PTY bytes each parse took in, once its events were handled.
    on_parsed: Callable[[int], None] | None = None
    positions: PositionBook | None = None


class OutputFeed:
    def __init__(self, loop: asyncio.AbstractEventLoop, plugins: Plugins) -> None:
        self._loop = loop
        self._plugins = plugins
        self._looking = asyncio.Lock()  # the one parser look brought up to date now

    @staticmethod
    def new_session(
        ctx: SpawnContext, on_event: EventHandler, look_at_screen: ScreenLook | None = None
    ) -> ParserSession:
        """The parsing of a launch about to start; nothing is parsed before `start`."""
        return ParserSession(on_event, ctx, look_at_screen)

    def start(self, session: ParserSession) -> None:
        """Begin parsing once the launch's terminal runs, and follow its telemetry."""
        session.open = True
        session.pty = pty = self._new_source(session, PTY_SOURCE)
        if pty is not None:
            self._guarded(session, pty, lambda: pty.parser.opened(session.ctx))
        self._follow_telemetry(session)
        self._parse_backlog(session)

    def replay(self, session: ParserSession, data: bytes) -> None:
        """PTY output a previous host parsed and reported already (a terminal adopted after a
        restart): the parser reads it to learn where the agent is; what it answers is dropped."""
        if session.pty is not None:
            self._replayed(session, session.pty, data)

    def _replayed(self, session: ParserSession, source: _Source, data: bytes) -> bool:
        """Its events are dropped, but what it asks for (a quiet call, a look at the screen) is
        kept: a state read from the screen or settled by time (a dialog on screen long enough to
        take keys) is this host's too, or a dialog the previous host reported would close
        unreported. An event that then repeats one already reported changes no status.
        Whether the parser is at rest after it."""
        if not session.open:
            return False
        try:
            result = source.parser.parse(session.ctx, data)
        except Exception:  # a parser bug must not take the host down
            log.exception("parser of %s failed replaying %s", session.ctx.provider, source.parser.source.name)
            return False
        self._handle(session, source, result.model_copy(update={"events": []}))
        return result.rests()

    def caught_up(self, session: ParserSession) -> None:
        """An adopted launch's replay is over: what comes next is new (the parser's `caught_up`)."""
        pty = session.pty
        if pty is not None:
            self._guarded(session, pty, lambda: pty.parser.caught_up(session.ctx))

    def pty_output(self, session: ParserSession, data: bytes) -> None:
        session.backlog += data
        if session.window is not None:
            return  # held to the window's end
        window_ends = session.parsed_at + PARSE_WINDOW_SECONDS
        if self._loop.time() >= window_ends:
            self._parse_backlog(session)
        else:
            session.window = self._loop.call_at(window_ends, self._parse_backlog, session)

    def _parse_backlog(self, session: ParserSession) -> None:
        """Parse what arrived; output arriving within a few milliseconds after is held to then.

        Output after a pause is parsed at once; a flood costs one parser call per window
        instead of one per 4 KiB read. The window is a timer only when output arrives in it:
        an agent writing a piece every few tens of milliseconds (a TUI redrawing) arms none,
        where a timer after every parse doubled the loop's callbacks of 50 busy agents.
        """
        session.window = None
        if not session.backlog or session.pty is None:
            return
        data = bytes(session.backlog)
        session.backlog.clear()
        pty = session.pty
        self._guarded(session, pty, lambda: pty.parser.parse(session.ctx, data))
        if session.on_parsed is not None:
            session.on_parsed(len(data))
        session.parsed_at = self._loop.time()

    # -- telemetry -----------------------------------------------------------------

    def _follow_telemetry(self, session: ParserSession) -> None:
        """Open the sources the provider names now, and close those it no longer names."""
        if not session.open:
            return
        try:
            wanted: list[OutputSource] = self._plugins.approval_source(session.ctx.provider, ctx=session.ctx)
        except WardianError as error:  # the PTY still tells the status; say why the rest is missing
            log.warning("agent %s: no telemetry sources: %s", session.ctx.agent_name, error.message)
            return
        named = {source.identity: source for source in wanted}
        for identity in [identity for identity in session.sources if identity not in named]:
            session.sources.pop(identity).close()
            self._heard(session, identity)
        for identity, source in named.items():
            if identity not in session.sources:
                self._open_telemetry(session, identity, source)

    def _new_source(self, session: ParserSession, source: OutputSource) -> _Source | None:
        try:
            return _Source(SourceParser(self._plugins, session.ctx.provider, source))
        except WardianError as error:  # a state class the provider cannot make: the source goes unparsed
            log.warning("agent %s: cannot parse %s: %s", session.ctx.agent_name, source.name, error.message)
            return None

    def _open_telemetry(self, session: ParserSession, identity: tuple[Any, ...], source: OutputSource) -> None:
        followed = self._new_source(session, source)
        if followed is None:
            return
        # Kept before the opening call, which may itself say the sources changed.
        session.sources[identity] = followed
        if source.holds_ready:
            session.unheard.add(identity)
        self._guarded(session, followed, lambda: followed.parser.opened(session.ctx))
        key = position_key(source)
        saved = session.positions.saved(key) if session.positions is not None and key is not None else None

        def on_line(line: bytes) -> bool:
            result = self._guarded(session, followed, lambda: followed.parser.parse(session.ctx, line))
            at_rest = result is not None and result.rests()
            self._heard(session, identity)
            self._note_position(session, key, followed, at_rest)
            return at_rest

        def on_replay(line: bytes) -> bool:
            at_rest = self._replayed(session, followed, line)
            self._heard(session, identity)
            return at_rest

        try:
            followed.follower = open_follower(self._loop, source, on_line, saved, on_replay)
        except (OSError, ValueError) as error:
            log.warning("agent %s: cannot follow %s: %s", session.ctx.agent_name, source.name, error)
            return
        self._note_position(session, key, followed)
        resumed = " from its recorded position" if saved is not None else ""
        log.info("agent %s: following %s (%s)%s", session.ctx.agent_name, source.name, source.kind, resumed)

    @staticmethod
    def _note_position(session: ParserSession, key: str | None, source: _Source, at_rest: bool = False) -> None:
        """Tell the launch's book how far `source` was read (not while its follower is opening:
        it is told once that is done). `at_rest`: the line just parsed left its parser at rest."""
        if session.positions is None or key is None or source.follower is None or not session.open:
            return
        position = position_of(source.follower, at_rest)
        if position is not None:
            session.positions.record(key, position)

    # -- parser answers ------------------------------------------------------------

    def _guarded(self, session: ParserSession, source: _Source, call: Callable[[], ParseResult]) -> ParseResult | None:
        """The parser's answer, handled; None when there was none to handle."""
        if not session.open:
            return None  # late output of a replaced or stopped launch
        try:
            result = call()
        except Exception:  # a parser bug must not take the host down
            log.exception("parser of %s failed on %s", session.ctx.provider, source.parser.source.name)
            return None
        self._handle(session, source, result)
        return result

    def _handle(self, session: ParserSession, source: _Source, result: ParseResult) -> None:
        for event in result.events:
            if event.kind == "session_started" and event.session_id:
                session.ctx = session.ctx.model_copy(update={"provider_session_id": event.session_id})
            if event.kind == "ready" and session.unheard:
                self._hold_ready(session, event)
                continue
            session.on_event(event)
        if result.call_again_after is not None:
            if source.quiet_timer is not None:
                source.quiet_timer.cancel()
            source.quiet_timer = self._loop.call_later(result.call_again_after, self._quiet, session, source)
        if result.want_screen:
            self._want_screen(session)
        if result.sources_changed:
            self._follow_telemetry(session)

    # -- a held ready ----------------------------------------------------------------

    def _hold_ready(self, session: ParserSession, event: ProviderEvent) -> None:
        session.held_ready = event
        if session.ready_timer is None:
            session.ready_timer = self._loop.call_later(READY_HOLD_SECONDS, self._ready_hold_over, session)

    def _heard(self, session: ParserSession, identity: tuple[Any, ...]) -> None:
        if identity in session.unheard:
            session.unheard.discard(identity)
            if not session.unheard:
                self._release_ready(session)

    def _ready_hold_over(self, session: ParserSession) -> None:
        session.ready_timer = None
        if session.unheard:
            names = sorted(str(identity[0]) for identity in session.unheard)
            log.warning(
                "agent %s: %s said nothing in %.0f s; ready anyway", session.ctx.agent_name, names, READY_HOLD_SECONDS
            )
            session.unheard.clear()
        self._release_ready(session)

    def _release_ready(self, session: ParserSession) -> None:
        if session.ready_timer is not None:
            session.ready_timer.cancel()
            session.ready_timer = None
        held, session.held_ready = session.held_ready, None
        if held is not None and session.open:
            session.on_event(held)

    def _quiet(self, session: ParserSession, source: _Source) -> None:
        source.quiet_timer = None
        self._guarded(session, source, lambda: source.parser.quiet(session.ctx))

    def _want_screen(self, session: ParserSession) -> None:
        if session.look_at_screen is None:
            return  # no screen to look at (a headless run)
        if session.screen_look is not None:
            session.look_again = True  # one more look once the current one is read
            return
        session.screen_look = self._loop.create_task(self._look(session))

    async def _look(self, session: ParserSession) -> None:
        assert session.look_at_screen is not None  # checked by _want_screen
        try:
            while session.open:
                async with self._looking:
                    # Asked again while waiting for another agent's look: this one, taken now,
                    # shows that output already (each look after it replayed up to 64 KB again).
                    session.look_again = False
                    snapshot = await session.look_at_screen()
                if session.pty is not None:
                    self._guarded(session, session.pty, functools.partial(self._read_screen, session, snapshot))
                if not session.look_again:
                    return
                await asyncio.sleep(SCREEN_LOOK_SPACING_SECONDS)
        finally:
            session.screen_look = None

    @staticmethod
    def _read_screen(session: ParserSession, snapshot: ScreenSnapshot) -> ParseResult:
        assert session.pty is not None  # checked by the caller
        return session.pty.parser.screen(session.ctx, snapshot)

    def close(self, session: ParserSession) -> None:
        """Parse what is left of the PTY output, then drop the launch's timers, looks and followers."""
        self._parse_backlog(session)
        if session.window is not None:
            session.window.cancel()
            session.window = None
        if session.screen_look is not None:
            session.screen_look.cancel()
            session.screen_look = None
        if session.ready_timer is not None:
            session.ready_timer.cancel()
            session.ready_timer = None
        for source in [*session.sources.values(), *([session.pty] if session.pty else [])]:
            source.close()
        session.sources.clear()
        session.open = False
