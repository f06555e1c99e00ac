"""Run a recorded file through a provider's parser exactly as the host would.

PTY recordings are fed as raw byte chunks, headless output and telemetry files line
by line. Time is simulated: a delay a parser asks for (`call_again_after`) fires as
its quiet call once the `gap` seconds between pieces add up to it, and at the end of
the file every pending delay fires in turn. Nothing sleeps. A PTY replay keeps a
screen model of what was fed, for the parser's screen looks.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wardian_core.parsing.screen import ScreenModel
from wardian_core.parsing.sse import EventParser
from wardian_core.provider_models import (
    HEADLESS_SOURCE,
    PTY_SOURCE,
    LaunchConfig,
    OutputSource,
    ParseResult,
    SpawnContext,
)
from wardian_core.status_rules import StatusCourse
from wardian_host.providers.manager import Plugins
from wardian_host.providers.source_parser import SourceParser

REPLAY_AGENT_UUID = "00000000-0000-4000-8000-000000000000"
# A parser that keeps asking to be called again would otherwise replay forever.
MAX_DELAYED_CALLS = 1000


def replay_context(provider: str, source: str, home: Path, settings: dict[str, Any]) -> SpawnContext:
    return SpawnContext(
        agent_uuid=REPLAY_AGENT_UUID,
        agent_name="replay",
        class_name="Replay",
        provider=provider,
        workspace=Path.cwd(),
        wardian_home=home,
        agent_dir=home / "agents" / REPLAY_AGENT_UUID,
        mode="headless" if source == "headless" else "interactive",
        launch=LaunchConfig(settings=settings),
    )


def resolve_source(plugins: Plugins, provider: str, ctx: SpawnContext, name: str, file: Path) -> OutputSource:
    if name == "pty":
        return PTY_SOURCE
    if name == "headless":
        return HEADLESS_SOURCE
    announced: list[OutputSource] = plugins.approval_source(provider, ctx=ctx)
    named = next((source for source in announced if source.name == name), None)
    # Whatever the source is live (a directory, a stream), its recording is a file.
    return OutputSource(name=name, kind="file", format=named.format if named else "lines", path=file)


def is_event_stream(file: Path) -> bool:
    """A recorded server-sent events body (`*.sse`): replayed one event's data per call, as live."""
    return file.suffix == ".sse"


def pieces(data: bytes, source: OutputSource, chunk_size: int, *, event_stream: bool = False) -> list[bytes]:
    if event_stream:
        return EventParser().feed(data if data.endswith(b"\n\n") else data + b"\n\n")
    if source.format == "chunks":
        return [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.removesuffix(b"\r") for line in lines]


class _Replay:
    def __init__(self, plugins: Plugins, provider: str, ctx: SpawnContext, source: OutputSource) -> None:
        self.ctx, self.source = ctx, source
        self.parser = SourceParser(plugins, provider, source)
        self.screen = ScreenModel() if source.format == "chunks" else None
        self.clock = 0.0
        self.due: float | None = None
        self.course = StatusCourse()
        self.delayed_calls = 0

    def feed(self, data: bytes) -> Iterator[dict[str, Any]]:
        if self.screen is not None:
            self.screen.feed(data)
        yield from self.take(self.parser.parse(self.ctx, data))

    def take(self, result: ParseResult) -> Iterator[dict[str, Any]]:
        at = round(self.clock, 6)
        for event in result.events:
            if event.kind == "session_started" and event.session_id:
                self.ctx = self.ctx.model_copy(update={"provider_session_id": event.session_id})
            yield {"type": "event", "at": at, "source": self.source.name, "event": event.model_dump(mode="json")}
            before = self.course.status
            new = self.course.apply(event.kind, event.turn)
            if new is not None:
                yield {
                    "type": "status",
                    "at": at,
                    "from": before,
                    "to": new,
                    "event": event.kind,
                    "evidence": event.evidence.model_dump(mode="json"),
                }
        if result.call_again_after is not None:
            self.due = self.clock + result.call_again_after
        if result.want_screen and self.screen is not None:
            yield from self.take(self.parser.screen(self.ctx, self.screen.snapshot()))

    def advance(self, until: float | None) -> Iterator[dict[str, Any]]:
        """Fire the quiet calls due by `until` (None: all of them, however late)."""
        while self.due is not None and (until is None or self.due <= until):
            if self.delayed_calls >= MAX_DELAYED_CALLS:
                return
            self.delayed_calls += 1
            self.clock, self.due = max(self.clock, self.due), None
            yield from self.take(self.parser.quiet(self.ctx))
        if until is not None:
            self.clock = max(self.clock, until)


def replay(
    plugins: Plugins,
    provider: str,
    file: Path,
    *,
    source: str,
    home: Path,
    settings: dict[str, Any] | None = None,
    chunk_size: int = 4096,
    gap: float = 0.0,
) -> Iterator[dict[str, Any]]:
    """Events and status changes, as dicts, in the order the host would see them."""
    ctx = replay_context(provider, source, home, settings or {})
    output_source = resolve_source(plugins, provider, ctx, source, file)
    run = _Replay(plugins, provider, ctx, output_source)
    yield {"type": "status", "at": 0.0, "from": None, "to": run.course.status, "event": None, "evidence": None}
    yield from run.take(run.parser.opened(run.ctx))
    recorded = pieces(file.read_bytes(), output_source, chunk_size, event_stream=is_event_stream(file))
    for index, piece in enumerate(recorded):
        if index:
            yield from run.advance(run.clock + gap)
        yield from run.feed(piece)
    yield from run.advance(None)
