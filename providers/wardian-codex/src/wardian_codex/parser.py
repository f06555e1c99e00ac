"""Codex output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui.CodexScreen`): the TUI's screen: readiness, the trust dialog, the command approval dialog.
- `codex-hooks` (`hooks_log.CodexHooks`): the payloads of Wardian's hooks: turns, tools, the thread.
- `thread-locks`, `sessions` (`sessions.CodexLocks`, `sessions.CodexSessions`): the files that tell
  the thread id, then that its rollout exists.
- `rollout` / `rollout-resumed` (`rollout.CodexRollout`): the interactive session's own log.
- `headless` (`headless.CodexHeadless`): `codex exec --json`.
"""

from wardian_codex import headless, hooks, hooks_log, rollout, sessions, tui
from wardian_core.provider import HEADLESS_SOURCE
from wardian_core.provider.parsing import parsers_by_source

parser_for = parsers_by_source(
    screen=tui.CodexScreen,
    named={
        HEADLESS_SOURCE.name: headless.CodexHeadless,
        sessions.LOCKS_SOURCE: sessions.CodexLocks,
        hooks.HOOKS_SOURCE: hooks_log.CodexHooks,
        sessions.SESSIONS_SOURCE: sessions.CodexSessions,
    },
    rest=rollout.CodexRollout,
)
