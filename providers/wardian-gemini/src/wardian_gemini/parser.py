"""Gemini CLI output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): readiness and the tool approval box, read from the screen.
- `gemini-hooks` (`hooks_log`): turns, tools, approvals and the session, from Wardian's hooks.
- `gemini-chats`, `gemini-session-log` (`usage`): the session's log, for each call's tokens.
- `gemini-debug-log` (`retries`): Gemini retrying a short 429 by itself.
- `headless` (`headless`): `gemini --output-format stream-json`.
"""

from wardian_core.provider import OutputSource, SpawnContext, hookimpl
from wardian_core.provider.parsing import parsers_by_source
from wardian_gemini import headless, home, hooks_log, retries, tui, usage

parser_for = parsers_by_source(
    screen=tui.GeminiScreen,
    named={
        home.HOOKS_SOURCE: hooks_log.GeminiHooks,
        # The chats folder is read for the session log's appearance only: nothing to remember.
        usage.CHATS_SOURCE: lambda source, ctx: usage.LogAppeared(),
        usage.SESSION_LOG_SOURCE: usage.SessionLog,
        retries.DEBUG_LOG_SOURCE: retries.RetryLog,
    },
    rest=headless.GeminiHeadless,
)


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    hooks = OutputSource(name=home.HOOKS_SOURCE, kind="file", path=home.hooks_file(ctx))
    debug_log = OutputSource(name=retries.DEBUG_LOG_SOURCE, kind="file", path=home.debug_log(ctx))
    return [hooks, debug_log, *usage.telemetry_sources(ctx)]
