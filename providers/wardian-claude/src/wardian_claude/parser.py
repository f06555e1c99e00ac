"""Claude Code output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui.ClaudeScreen`): the TUI's screen — readiness, first-run screens, a rejected approval.
- `claude-hooks` (primary, `hooks_log.ClaudeHooks`): the JSONL our hooks append.
- `claude-transcript` (`limits.ClaudeTranscript`): the session's transcript, for each message's
  usage and the usage limits Claude records.
- `headless` (`headless.ClaudeHeadless`): `-p --output-format stream-json --verbose` lines.
"""

from wardian_claude import headless, hooks_log, limits, tui, usage
from wardian_core.provider import HEADLESS_SOURCE
from wardian_core.provider.parsing import parsers_by_source

parser_for = parsers_by_source(
    screen=tui.ClaudeScreen,
    named={HEADLESS_SOURCE.name: headless.ClaudeHeadless, usage.TRANSCRIPT_SOURCE_NAME: limits.ClaudeTranscript},
    rest=hooks_log.ClaudeHooks,
)
