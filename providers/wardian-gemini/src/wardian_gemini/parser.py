"""Gemini CLI output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): readiness and the tool approval box, read from the screen.
- `gemini-hooks` (`hooks_log`): turns, tools, approvals and the session, from Wardian's hooks.
- `gemini-chats`, `gemini-session-log` (`usage`): the session's log, for each call's tokens.
- `headless` (`headless`): `gemini --output-format stream-json`.
"""

from wardian_core.provider import OutputSource, SourceParser, SpawnContext, hookimpl
from wardian_gemini import headless, home, hooks_log, tui, usage


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.format == "chunks":
        return tui.GeminiScreen(source, ctx)
    if source.name == home.HOOKS_SOURCE:
        return hooks_log.GeminiHooks(source, ctx)
    if source.name == usage.CHATS_SOURCE:
        return usage.LogAppeared()
    if source.name == usage.SESSION_LOG_SOURCE:
        return usage.SessionLog(source, ctx)
    return headless.GeminiHeadless(source, ctx)


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    hooks = OutputSource(name=home.HOOKS_SOURCE, kind="file", path=home.hooks_file(ctx))
    return [hooks, *usage.telemetry_sources(ctx)]
