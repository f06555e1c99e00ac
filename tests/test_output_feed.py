"""The output feed's own rules, with a stand-in provider: a ready held for a source that holds it."""

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from stand_in_provider import StandIn, registered

from wardian_core import hookimpl
from wardian_core.parsing.events import event
from wardian_core.parsing.screen import ScreenModel, ScreenSnapshot
from wardian_core.provider_models import (
    OutputSource,
    ParseResult,
    ProviderEvent,
)
from wardian_host.output import feed
from wardian_host.output.feed import OutputFeed, ParserSession
from wardian_host.testing.contexts import spawn_context

TIMEOUT = 10


class StandInProvider(StandIn):
    """The PTY says ready on `READY`; the stream reports nothing and keeps what it was fed."""

    def __init__(self, stream: OutputSource) -> None:
        self.stream = stream
        self.stream_lines: list[bytes] = []

    @hookimpl
    def approval_source(self) -> list[OutputSource]:
        return [self.stream]

    @hookimpl
    def parse_output(self, source: OutputSource) -> "_PtyParser | _StreamParser":
        return _PtyParser(source) if source.kind == "pty" else _StreamParser(self.stream_lines)


@dataclass
class _PtyParser:
    source: OutputSource

    def feed(self, data: bytes) -> ParseResult:
        ready = [event("ready", self.source, "ready word", "READY")] if b"READY" in data else []
        return ParseResult(events=ready)


@dataclass
class _StreamParser:
    lines: list[bytes]

    def feed(self, data: bytes) -> ParseResult:
        self.lines.append(data)
        return ParseResult()


async def _until(condition: Any) -> None:
    async def poll() -> None:
        # The conditions are states with no event of their own: polling gives the feed turns.
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), TIMEOUT)


@dataclass
class Launch:
    """A launch whose PTY has just said READY, and what its feed handed on."""

    feed: OutputFeed
    session: ParserSession
    provider: StandInProvider
    stream_file: Path
    seen: list[ProviderEvent]

    def kinds(self) -> list[str]:
        return [e.kind for e in self.seen]


def _ready_said(tmp_path: Path, holds_ready: bool) -> Launch:
    """Call inside the event loop: a feed with one file source, started, and READY on its PTY."""
    stream_file = tmp_path / "stream.jsonl"
    stream = OutputSource(name="stream", kind="file", path=stream_file, holds_ready=holds_ready)
    provider = StandInProvider(stream)
    output_feed = OutputFeed(asyncio.get_running_loop(), registered(provider))
    seen: list[ProviderEvent] = []
    session = output_feed.new_session(spawn_context(tmp_path, "standin"), seen.append)
    output_feed.start(session)
    output_feed.pty_output(session, b"READY")  # parsed at once: a ready let through is seen here
    return Launch(output_feed, session, provider, stream_file, seen)


def test_ready_waits_for_the_first_line_of_a_source_that_holds_it(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        launch = _ready_said(tmp_path, holds_ready=True)
        before = launch.kinds()
        launch.stream_file.write_text('{"type": "server.connected"}\n')
        await _until(lambda: launch.seen)
        launch.feed.close(launch.session)
        return before, launch.kinds()

    before, after = asyncio.run(scenario())
    assert before == [], "ready went out before the source that holds it spoke"
    assert after == ["ready"]


def test_a_source_that_does_not_hold_ready_lets_it_through(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        launch = _ready_said(tmp_path, holds_ready=False)
        launch.feed.close(launch.session)
        return launch.kinds()

    assert asyncio.run(scenario()) == ["ready"]


def test_a_silent_source_holds_ready_only_so_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(feed, "READY_HOLD_SECONDS", 0.2)

    async def scenario() -> list[str]:
        launch = _ready_said(tmp_path, holds_ready=True)
        await _until(lambda: launch.seen)
        launch.feed.close(launch.session)
        assert launch.provider.stream_lines == []
        return launch.kinds()

    assert asyncio.run(scenario()) == ["ready"]
    assert "said nothing" in caplog.text and "stream" in caplog.text


def test_a_closed_launch_lets_no_held_ready_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed, "READY_HOLD_SECONDS", 0.1)

    async def scenario() -> list[str]:
        launch = _ready_said(tmp_path, holds_ready=True)
        launch.feed.close(launch.session)
        await asyncio.sleep(0.3)  # past the hold: its timer was cancelled with the launch
        return launch.kinds()

    assert asyncio.run(scenario()) == []


class _KeepsWhatItIsFed(StandIn):
    """The PTY's parser keeps each piece it is fed, and reports nothing."""

    def __init__(self) -> None:
        self.fed: list[bytes] = []

    @hookimpl
    def approval_source(self) -> list[OutputSource]:
        return []

    @hookimpl
    def parse_output(self, source: OutputSource) -> "_StreamParser":
        return _StreamParser(self.fed)


def test_output_after_a_pause_is_parsed_at_once_and_a_flood_once_per_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A window long enough that the two flood pieces surely fall in it, however loaded the machine.
    monkeypatch.setattr(feed, "PARSE_WINDOW_SECONDS", 1.0)

    async def scenario() -> tuple[list[bytes], bool, list[bytes], list[bytes]]:
        provider = _KeepsWhatItIsFed()
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(provider))
        session = output_feed.new_session(spawn_context(tmp_path, "standin"), lambda _: None)
        output_feed.start(session)
        output_feed.pty_output(session, b"after a pause")
        at_once, timer_armed = list(provider.fed), session.window is not None
        output_feed.pty_output(session, b"flood ")
        output_feed.pty_output(session, b"goes on")
        held = list(provider.fed)
        await _until(lambda: len(provider.fed) == 2)
        output_feed.close(session)
        return at_once, timer_armed, held, provider.fed

    at_once, timer_armed, held, fed = asyncio.run(scenario())
    assert at_once == [b"after a pause"]
    assert not timer_armed, "a piece after a pause armed a window timer (a callback per piece of a trickle)"
    assert held == [b"after a pause"], "output within the window was parsed before it ended"
    assert fed == [b"after a pause", b"flood goes on"]


class _LooksAtEveryDrawing(StandIn):
    """The PTY's parser asks for the screen on any output, and reads nothing in it."""

    @hookimpl
    def approval_source(self) -> list[OutputSource]:
        return []

    @hookimpl
    def parse_output(self, source: OutputSource) -> "_AsksForTheScreen":
        return _AsksForTheScreen()


class _AsksForTheScreen:
    def feed(self, data: bytes) -> ParseResult:
        return ParseResult(want_screen=True)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        return ParseResult()


def test_agents_screen_looks_are_brought_up_to_date_one_at_a_time(tmp_path: Path) -> None:
    agents = 3

    async def scenario() -> int:
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(_LooksAtEveryDrawing()))
        running, most, looked, all_looked = [0], [0], [0], asyncio.Event()

        async def look() -> ScreenSnapshot:
            running[0] += 1
            most[0] = max(most[0], running[0])
            for _ in range(3):  # a catch-up replays in slices, the loop's other work between them
                await asyncio.sleep(0)
            running[0] -= 1
            looked[0] += 1
            if looked[0] == agents:
                all_looked.set()
            return ScreenModel().snapshot()

        sessions = [
            output_feed.new_session(spawn_context(tmp_path, "standin"), lambda _: None, look) for _ in range(agents)
        ]
        for session in sessions:
            output_feed.start(session)
            output_feed.pty_output(session, b"drawn")
        await asyncio.wait_for(all_looked.wait(), TIMEOUT)
        for session in sessions:
            output_feed.close(session)
        return most[0]

    assert asyncio.run(scenario()) == 1, "several agents' looks ran their slices in the same turns of the loop"


def test_a_look_asked_for_again_while_it_waits_for_another_agents_is_taken_once(tmp_path: Path) -> None:
    async def scenario() -> int:
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(_LooksAtEveryDrawing()))
        first_holds, first_looking, second_looks = asyncio.Event(), asyncio.Event(), [0]

        async def first_look() -> ScreenSnapshot:
            first_looking.set()
            await first_holds.wait()
            return ScreenModel().snapshot()

        async def second_look() -> ScreenSnapshot:
            second_looks[0] += 1
            return ScreenModel().snapshot()

        first = output_feed.new_session(spawn_context(tmp_path, "standin"), lambda _: None, first_look)
        second = output_feed.new_session(spawn_context(tmp_path, "standin"), lambda _: None, second_look)
        for session in (first, second):
            output_feed.start(session)
        output_feed.pty_output(first, b"drawn")
        await first_looking.wait()
        output_feed.pty_output(second, b"drawn")
        await asyncio.sleep(0)  # its look starts, and waits for the first agent's
        second.parsed_at = float("-inf")  # parsed at once, not held to a window
        output_feed.pty_output(second, b"drawn again")  # asked again, before its look was taken
        first_holds.set()
        await _until(lambda: second.screen_look is None)
        for session in (first, second):
            output_feed.close(session)
        return second_looks[0]

    assert asyncio.run(scenario()) == 1, "output already in the screen's look was looked at again"


class _SettlingDialog(StandIn):
    """The PTY's dialog, found by a look at the screen, is reported once it has been there a
    moment (a quiet call), and its end only if it was: the shape of a real TUI's approval dialog."""

    def __init__(self) -> None:
        self.parser = _DialogParser()

    @hookimpl
    def approval_source(self) -> list[OutputSource]:
        return []

    @hookimpl
    def parse_output(self, source: OutputSource) -> "_DialogParser":
        self.parser.source = source
        return self.parser


class _DialogParser:
    source: OutputSource

    def __init__(self) -> None:
        self.shown = self.reported = False

    def feed(self, data: bytes) -> ParseResult:
        if b"DIALOG" in data:
            return ParseResult(want_screen=True)  # where the dialog is, the screen tells
        if b"GONE" in data and self.shown:
            self.shown = False
            return ParseResult(events=[event("approval_resolved", self.source, "dialog gone", "GONE")] * self.reported)
        return ParseResult()

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        self.shown = True
        return ParseResult(call_again_after=0.01)

    def quiet(self) -> ParseResult:
        if not self.shown or self.reported:
            return ParseResult()
        self.reported = True
        settled = event("approval_requested", self.source, "dialog settled", "DIALOG", reason="tool", dialog="exec")
        return ParseResult(events=[settled])


def test_a_dialog_replayed_after_a_restart_settles_and_its_answer_is_reported(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        provider = _SettlingDialog()
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(provider))
        seen: list[ProviderEvent] = []

        async def look() -> ScreenSnapshot:
            return ScreenModel().snapshot()

        session = output_feed.new_session(spawn_context(tmp_path, "standin"), seen.append, look)
        output_feed.start(session)
        output_feed.replay(session, b"DIALOG")  # what the previous host saw and reported
        await _until(lambda: provider.parser.reported)
        output_feed.pty_output(session, b"GONE")  # answered on the new host
        output_feed.close(session)
        return [e.kind for e in seen]

    # The settled dialog is said again (it changes no status); its end is not lost.
    assert asyncio.run(scenario()) == ["approval_requested", "approval_resolved"]
