"""OpenCode output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui.OpenCodeScreen`): readiness and, as a fallback, the permission panel, from the screen.
- `opencode-events` (`events.OpenCodeEvents`): the session, turns, permissions and errors, from
  OpenCode's server.
- `headless` (`headless.OpenCodeHeadless`): `opencode run --format json`.
"""

from wardian_core.provider import OutputSource, SourceParser, SpawnContext, hookimpl
from wardian_opencode import events, headless, permissions, server, tui


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser | None:
    if source.format == "chunks":
        return tui.OpenCodeScreen(source, ctx, permissions.ledger_for(ctx))
    if source.name == server.EVENTS_SOURCE:
        return events.OpenCodeEvents(source, ctx, permissions.ledger_for(ctx))
    if source.kind == "headless":
        return headless.OpenCodeHeadless(source, ctx)
    return None


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    source = server.events_source(ctx)
    return [source] if source is not None else []
