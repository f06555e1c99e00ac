"""Feeds one agent's output sources to its provider's parser, and its events on.

The sources of one launch are its PTY and the telemetry the provider names in
`approval_source` (a file followed line by line). Asked at launch, and again once
`session_started` makes the provider session id known, because the answer may name a
file that only exists from then on.

Each source has its own parser state; a parser that asks to be called again after a
delay gets one timer (replaced by the next request), so quiet-time rules cost nothing
while output flows and nothing is polled. PTY output arriving in a flood is coalesced
into one parser call per few milliseconds. Everything of a launch lives in its
`ParserSession`; once closed, late output, ticks and lines of that launch are dropped.
"""

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wardian_core.provider_models import PTY_SOURCE, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_host.output.file_tail import FileTail
from wardian_host.providers.manager import Plugins

log = logging.getLogger(__name__)

PARSE_WINDOW_SECONDS = 0.005

EventHandler = Callable[[ProviderEvent], None]


@dataclass(eq=False)
class ParserSession:
    """One launch of one agent, as its provider's parser sees it."""

    on_event: EventHandler
    # The PTY's parser gets the launch context; telemetry gets `ctx`, which carries the
    # provider session id once it is known.
    launch_ctx: SpawnContext
    ctx: SpawnContext
    states: dict[str, dict[str, Any]] = field(default_factory=dict)
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    # PTY output waiting for the parser while a flood is coalesced.
    backlog: bytearray = field(default_factory=bytearray)
    window: asyncio.TimerHandle | None = None
    telemetry: FileTail | None = None
    open: bool = False


class OutputFeed:
    def __init__(self, loop: asyncio.AbstractEventLoop, plugins: Plugins) -> None:
        self._loop = loop
        self._plugins = plugins

    @staticmethod
    def new_session(ctx: SpawnContext, on_event: EventHandler) -> ParserSession:
        """The parsing of a launch about to start; nothing is parsed before `start`."""
        return ParserSession(on_event, ctx, ctx)

    def start(self, session: ParserSession) -> None:
        """Begin parsing once the launch's terminal runs."""
        session.open = True
        self._open_source(session, session.launch_ctx, PTY_SOURCE)

    def pty_output(self, session: ParserSession, data: bytes) -> None:
        session.backlog += data
        if session.window is None:
            self._parse_backlog(session)

    def _parse_backlog(self, session: ParserSession) -> None:
        """Parse what arrived, then hold further output for a few milliseconds.

        Output after a pause is parsed at once; a flood costs one parser call per window
        instead of one per 4 KiB read. The window exists only while output flows.
        """
        session.window = None
        if not session.backlog:
            return
        data = bytes(session.backlog)
        session.backlog.clear()
        self._feed(session, session.launch_ctx, PTY_SOURCE, data)
        session.window = self._loop.call_later(PARSE_WINDOW_SECONDS, self._parse_backlog, session)

    def follow_telemetry(self, session: ParserSession) -> None:
        """Follow the source the provider names now, if it is not the one already followed."""
        if not session.open:
            return
        source: OutputSource | None = self._plugins.call(session.ctx.provider, "approval_source", ctx=session.ctx)
        current = session.telemetry
        if source is None or source.path is None:
            return
        if current is not None and current.path == source.path:
            return
        if current is not None:
            current.close()
        ctx = session.ctx
        self._open_source(session, ctx, source)
        session.telemetry = FileTail(self._loop, source.path, lambda line: self._feed(session, ctx, source, line))
        session.telemetry.start()
        log.info("agent %s: following %s as %s", session.ctx.agent_name, source.path, source.name)

    def close(self, session: ParserSession) -> None:
        """Parse what is left of the PTY output, then drop the launch's timers and state."""
        self._parse_backlog(session)
        if session.window is not None:
            session.window.cancel()
            session.window = None
        for timer in session.timers.values():
            timer.cancel()
        session.timers.clear()
        session.states.clear()
        if session.telemetry is not None:
            session.telemetry.close()
            session.telemetry = None
        session.open = False

    def _open_source(self, session: ParserSession, ctx: SpawnContext, source: OutputSource) -> None:
        session.states[source.name] = {}
        self._feed(session, ctx, source, b"")

    def _feed(self, session: ParserSession, ctx: SpawnContext, source: OutputSource, data: bytes) -> None:
        if not session.open:
            return  # late output of a replaced or stopped launch
        state = session.states.setdefault(source.name, {})
        try:
            result: ParseResult = self._plugins.call(
                ctx.provider, "parse_output", ctx=ctx, source=source, data=data, state=state
            )
        except Exception:  # a parser bug must not take the host down
            log.exception("parser of %s failed on %s", ctx.provider, source.name)
            return
        for event in result.events:
            session.on_event(event)
            if event.kind == "session_started" and event.session_id:
                self._session_started(session, event.session_id)
        if result.call_again_after is not None:
            self._schedule(session, ctx, source, result.call_again_after)

    def _session_started(self, session: ParserSession, session_id: str) -> None:
        session.ctx = session.ctx.model_copy(update={"provider_session_id": session_id})
        try:
            self.follow_telemetry(session)
        except Exception:  # the PTY still tells the status
            log.exception("agent %s: its provider's approval_source failed", session.ctx.agent_name)

    def _schedule(self, session: ParserSession, ctx: SpawnContext, source: OutputSource, delay: float) -> None:
        previous = session.timers.pop(source.name, None)
        if previous is not None:
            previous.cancel()
        session.timers[source.name] = self._loop.call_later(delay, self._call_again, session, ctx, source)

    def _call_again(self, session: ParserSession, ctx: SpawnContext, source: OutputSource) -> None:
        session.timers.pop(source.name, None)
        self._feed(session, ctx, source, b"")
