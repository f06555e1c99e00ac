"""Parser objects for line sources, made from the function that reads one line.

Most telemetry and headless sources are read a line at a time by one function; these
hold what that function needs between lines (the source, its memory, the launch's
context) so a provider's `parse_output` answers `SessionLineParser(ctx, source,
hooks_log.parse_hook, HookState())` instead of writing the same small class again.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext

State = TypeVar("State")


@dataclass
class LineParser:
    """Lines read one by one, without memory."""

    source: OutputSource
    read: Callable[[OutputSource, bytes], ParseResult]

    def feed(self, data: bytes) -> ParseResult:
        return self.read(self.source, data)


@dataclass
class StatefulLineParser(Generic[State]):
    """Lines read with a memory of the lines before."""

    source: OutputSource
    read: Callable[[OutputSource, bytes, State], ParseResult]
    state: State

    def feed(self, data: bytes) -> ParseResult:
        return self.read(self.source, data, self.state)


@dataclass
class SessionLineParser(Generic[State]):
    """Lines read with a memory and the session the launch knows now (`ctx` is kept current
    by the host), e.g. to ignore another session's hook payloads."""

    ctx: SpawnContext
    source: OutputSource
    read: Callable[[str | None, OutputSource, bytes, State], ParseResult]
    state: State

    def feed(self, data: bytes) -> ParseResult:
        return self.read(self.ctx.provider_session_id, self.source, data, self.state)
