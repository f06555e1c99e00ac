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
    """Lines read one by one, without memory: always at rest (a log of weeks is not replayed)."""

    source: OutputSource
    read: Callable[[OutputSource, bytes], ParseResult]

    def feed(self, data: bytes) -> ParseResult:
        result = self.read(self.source, data)
        result.at_rest = True
        return result


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
    by the host), e.g. to ignore another session's hook payloads. `at_rest`: whether the
    memory, after a line, is what a new parser's would be (`ParseResult.at_rest`)."""

    ctx: SpawnContext
    source: OutputSource
    read: Callable[[str | None, OutputSource, bytes, State], ParseResult]
    state: State
    at_rest: Callable[[State, str | None], bool] | None = None

    def feed(self, data: bytes) -> ParseResult:
        known_session = self.ctx.provider_session_id
        result = self.read(known_session, self.source, data, self.state)
        if self.at_rest is not None:
            result.at_rest = self.at_rest(self.state, known_session)
        return result


def holds_only_the_known_session(session_id: str | None, known_session: str | None) -> bool:
    """Whether a parser that adopted `session_id` (from a SessionStart) holds nothing a new one
    would not take from the launch's context: no session, or the one the host knows."""
    return session_id is None or session_id == known_session
