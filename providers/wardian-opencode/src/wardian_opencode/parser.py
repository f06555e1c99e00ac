"""OpenCode output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): readiness and, as a fallback, the permission panel, read from the screen.
- `opencode-events` (`events`): the session, turns, permissions and errors, from OpenCode's server.
- `headless` (`headless`): `opencode run --format json`.
"""

from dataclasses import dataclass, field

from wardian_core import hookimpl
from wardian_core.hookspecs import SourceParser
from wardian_core.parsing.line_parsers import SessionLineParser, StatefulLineParser
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_opencode import events, headless, permissions, server, tui


@dataclass
class TuiParser:
    source: OutputSource
    state: tui.TerminalState = field(default_factory=tui.TerminalState)

    def feed(self, data: bytes) -> ParseResult:
        return tui.watch_stream(data, self.state)

    def quiet(self) -> ParseResult:
        return tui.settle_passed(self.state)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        return tui.read_screen(self.source, snapshot, self.state)


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser | None:
    if source.format == "chunks":
        return TuiParser(source, tui.TerminalState(permissions=permissions.ledger_for(ctx)))
    if source.name == server.EVENTS_SOURCE:
        state = events.EventsState(permissions=permissions.ledger_for(ctx))
        return SessionLineParser(ctx, source, events.parse_event, state)
    if source.kind == "headless":
        return StatefulLineParser(source, headless.parse_headless, headless.HeadlessState())
    return None


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    source = server.events_source(ctx)
    return [source] if source is not None else []
