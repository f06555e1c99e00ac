"""The host's side of a provider's parser: asked once, its context kept current, its calls guarded."""

from dataclasses import dataclass, field
from pathlib import Path

from stand_in_provider import StandIn, registered

from wardian_core import hookimpl
from wardian_core.provider_models import PTY_SOURCE, OutputSource, ParseResult, SpawnContext
from wardian_host.providers.source_parser import SourceParser
from wardian_host.testing.contexts import spawn_context


@dataclass
class KeepingParser:
    """Keeps the context it was made with and notes the session it names at each feed."""

    ctx: SpawnContext
    sessions: list[str | None] = field(default_factory=list)

    def feed(self, data: bytes) -> ParseResult:
        self.sessions.append(self.ctx.provider_session_id)
        return ParseResult()


class Keeper(StandIn):
    name = "keeper"

    def __init__(self) -> None:
        self.made: list[KeepingParser] = []

    @hookimpl
    def parse_output(self, ctx: SpawnContext, source: OutputSource) -> KeepingParser:
        self.made.append(KeepingParser(ctx))
        return self.made[-1]


def test_a_kept_context_learns_the_session_and_the_callers_does_not_change(tmp_path: Path) -> None:
    keeper = Keeper()
    parser = SourceParser(registered(keeper), "keeper", PTY_SOURCE)
    ctx = spawn_context(tmp_path, "keeper")

    parser.parse(ctx, b"before")
    known = ctx.model_copy(update={"provider_session_id": "s-1"})
    parser.parse(known, b"after")

    # One parser for the source, whose kept context now names the session another source found.
    assert [made.sessions for made in keeper.made] == [[None, "s-1"]]
    assert ctx.provider_session_id is None
