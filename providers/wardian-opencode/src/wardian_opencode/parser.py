"""OpenCode output → provider events. One parser per source; never raises (`never_raises`).

- `pty` (`tui`): readiness and, as a fallback, the permission panel, read from the screen.
- `opencode-events` (`events`): the session, turns, permissions and errors, from OpenCode's server.
- `headless` (`headless`): `opencode run --format json`.
"""

from typing import Any

from wardian_core.parsing.guard import never_raises
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_opencode import events, headless, server, tui


def state_class(source: OutputSource) -> type | None:
    if source.format == "chunks":
        return tui.TerminalState
    if source.name == server.EVENTS_SOURCE:
        return events.EventsState
    if source.kind == "headless":
        return headless.HeadlessState
    return None


@never_raises
def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: Any) -> ParseResult:
    if isinstance(state, tui.TerminalState):
        return tui.watch_stream(data, state)
    if isinstance(state, events.EventsState):
        return events.parse_event(ctx.provider_session_id, source, data, state)
    if isinstance(state, headless.HeadlessState):
        return headless.parse_headless(source, data, state)
    return ParseResult()


def quiet(state: Any) -> ParseResult:
    return tui.settle_passed(state) if isinstance(state, tui.TerminalState) else ParseResult()


@never_raises
def screen(source: OutputSource, snapshot: ScreenSnapshot, state: Any) -> ParseResult:
    if not isinstance(state, tui.TerminalState):
        return ParseResult()
    return tui.read_screen(source, snapshot, state)


def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    source = server.events_source(ctx)
    return [source] if source is not None else []
