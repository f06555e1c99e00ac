"""The output feed's own rules, with a stand-in provider: a ready held for a source that holds it."""

import asyncio
from pathlib import Path
from typing import Any

import pytest

from wardian_core.parsing.events import event
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_host.output import feed
from wardian_host.output.feed import OutputFeed
from wardian_host.testing.contexts import spawn_context

TIMEOUT = 10


class StandInProvider:
    """Answers the hooks the feed calls: the PTY says ready on `READY`; the stream reports nothing."""

    def __init__(self, stream: OutputSource) -> None:
        self.stream = stream
        self.stream_lines: list[bytes] = []

    def call(self, provider: str, hook: str, **kwargs: Any) -> Any:
        if hook == "parser_state":
            return None
        if hook == "approval_source":
            return [self.stream]
        source: OutputSource = kwargs["source"]
        if hook == "parse_output" and source.kind == "pty" and b"READY" in kwargs["data"]:
            return ParseResult(events=[event("ready", source, "ready word", "READY")])
        if hook == "parse_output":
            self.stream_lines.append(kwargs["data"])
        return ParseResult()


async def _until(condition: Any) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), TIMEOUT)


def _feed_with_stream(tmp_path: Path, holds_ready: bool) -> tuple[OutputFeed, StandInProvider, SpawnContext, Path]:
    stream_file = tmp_path / "stream.jsonl"
    stream = OutputSource(name="stream", kind="file", path=stream_file, holds_ready=holds_ready)
    provider = StandInProvider(stream)
    output_feed = OutputFeed(asyncio.get_running_loop(), provider)  # type: ignore[arg-type]
    return output_feed, provider, spawn_context(tmp_path, "standin"), stream_file


def test_ready_waits_for_the_first_line_of_a_source_that_holds_it(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        output_feed, provider, ctx, stream_file = _feed_with_stream(tmp_path, holds_ready=True)
        seen: list[ProviderEvent] = []
        session = output_feed.new_session(ctx, seen.append)
        output_feed.start(session)
        output_feed.pty_output(session, b"READY")  # parsed at once: a ready let through is seen here
        before = [e.kind for e in seen]
        stream_file.write_text('{"type": "server.connected"}\n')
        await _until(lambda: seen)
        output_feed.close(session)
        return before, [e.kind for e in seen]

    before, after = asyncio.run(scenario())
    assert before == [], "ready went out before the source that holds it spoke"
    assert after == ["ready"]


def test_a_source_that_does_not_hold_ready_lets_it_through(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        output_feed, _, ctx, _ = _feed_with_stream(tmp_path, holds_ready=False)
        seen: list[ProviderEvent] = []
        session = output_feed.new_session(ctx, seen.append)
        output_feed.start(session)
        output_feed.pty_output(session, b"READY")
        output_feed.close(session)
        return [e.kind for e in seen]

    assert asyncio.run(scenario()) == ["ready"]


def test_a_silent_source_holds_ready_only_so_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(feed, "READY_HOLD_SECONDS", 0.2)

    async def scenario() -> list[str]:
        output_feed, provider, ctx, _ = _feed_with_stream(tmp_path, holds_ready=True)
        seen: list[ProviderEvent] = []
        session = output_feed.new_session(ctx, seen.append)
        output_feed.start(session)
        output_feed.pty_output(session, b"READY")
        await _until(lambda: seen)
        output_feed.close(session)
        assert provider.stream_lines == []
        return [e.kind for e in seen]

    assert asyncio.run(scenario()) == ["ready"]
    assert "said nothing" in caplog.text and "stream" in caplog.text


def test_a_closed_launch_lets_no_held_ready_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed, "READY_HOLD_SECONDS", 0.1)

    async def scenario() -> list[str]:
        output_feed, _, ctx, _ = _feed_with_stream(tmp_path, holds_ready=True)
        seen: list[ProviderEvent] = []
        session = output_feed.new_session(ctx, seen.append)
        output_feed.start(session)
        output_feed.pty_output(session, b"READY")
        output_feed.close(session)
        await asyncio.sleep(0.3)  # past the hold: its timer was cancelled with the launch
        return [e.kind for e in seen]

    assert asyncio.run(scenario()) == []
