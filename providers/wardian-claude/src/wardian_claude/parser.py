"""Claude Code output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui.ClaudeScreen`): the TUI's screen — readiness, first-run screens, a rejected approval.
- `claude-hooks` (primary, `hooks_log.ClaudeHooks`): the JSONL our hooks append.
- `claude-transcript` (`limits.ClaudeTranscript`): the session's transcript, for each message's
  usage and the usage limits Claude records.
- `headless` (`headless.ClaudeHeadless`): `-p --output-format stream-json --verbose` lines.
"""

from wardian_claude import headless, hooks_log, limits, tui, usage
from wardian_core.provider import HEADLESS_SOURCE, OutputSource, SourceParser, SpawnContext, hookimpl


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.format == "chunks":
        return tui.ClaudeScreen(source, ctx)
    if source.name == HEADLESS_SOURCE.name:
        return headless.ClaudeHeadless(source, ctx)
    if source.name == usage.TRANSCRIPT_SOURCE_NAME:
        return limits.ClaudeTranscript(source, ctx)
    return hooks_log.ClaudeHooks(source, ctx)
