"""Which parser reads which source: the dispatch a provider's `parse_output` makes.

A provider reads the PTY's screen with one parser class and each telemetry source with
another, chosen by the source's name; `parsers_by_source` is that choice written once, so a
provider states only its table.
"""

from collections.abc import Callable, Mapping
from typing import Protocol

from wardian_core._hookimpl import hookimpl
from wardian_core.hookspecs import SourceParser
from wardian_core.provider_models import OutputSource, SpawnContext

ParserClass = Callable[[OutputSource, SpawnContext], SourceParser]


class ParseOutput(Protocol):
    """The `parse_output` hook's implementation, called with keywords as the host calls it."""

    def __call__(self, ctx: SpawnContext, source: OutputSource) -> SourceParser: ...


def parsers_by_source(*, screen: ParserClass, named: Mapping[str, ParserClass], rest: ParserClass) -> ParseOutput:
    """A `parse_output` implementation (marked, ready to import into the plugin module): `screen`
    makes the PTY's parser (the `chunks` source), `named` the parser of a source by its name,
    `rest` the parser of every other source."""

    @hookimpl(specname="parse_output")
    def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser:
        if source.format == "chunks":
            return screen(source, ctx)
        return named.get(source.name, rest)(source, ctx)

    return parse_output
