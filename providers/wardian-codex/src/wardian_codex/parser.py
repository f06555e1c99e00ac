"""Codex output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui.CodexScreen`): the TUI's screen: readiness, the trust dialog, the command approval dialog.
- `codex-hooks` (`hooks_log.CodexHooks`): the payloads of Wardian's hooks: turns, tools, the thread.
- `thread-locks`, `sessions` (`sessions.CodexLocks`, `sessions.CodexSessions`): the files that tell
  the thread id, then that its rollout exists.
- `rollout` / `rollout-resumed` (`rollout.CodexRollout`): the interactive session's own log.
- `headless` (`headless.CodexHeadless`): `codex exec --json`.
"""

from wardian_codex import headless, hooks, hooks_log, rollout, sessions, tui
from wardian_core.provider import HEADLESS_SOURCE, OutputSource, SourceParser, SpawnContext, hookimpl


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.name == HEADLESS_SOURCE.name:
        return headless.CodexHeadless(source, ctx)
    if source.format == "chunks":
        return tui.CodexScreen(source, ctx)
    if source.name == sessions.LOCKS_SOURCE:
        return sessions.CodexLocks(source, ctx)
    if source.name == hooks.HOOKS_SOURCE:
        return hooks_log.CodexHooks(source, ctx)
    if source.name == sessions.SESSIONS_SOURCE:
        return sessions.CodexSessions(source, ctx)
    return rollout.CodexRollout(source, ctx)
