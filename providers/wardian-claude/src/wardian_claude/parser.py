"""Claude Code output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): the TUI's screen — readiness, first-run screens, a rejected approval.
- `claude-hooks` (primary, `hooks_log`): the JSONL our hooks append.
- `claude-transcript` (`usage`, `limits`): the session's transcript, for each message's usage
  and the usage limits Claude records.
- `headless` (`headless`): `-p --output-format stream-json --verbose` lines.
"""

from dataclasses import dataclass, field

from wardian_claude import headless, home, hooks_log, limits, tui, usage
from wardian_core.parsing.line_parsers import SessionLineParser, StatefulLineParser
from wardian_core.provider import HEADLESS_SOURCE, OutputSource, ParseResult, SourceParser, SpawnContext, hookimpl
from wardian_core.provider.parsing import ScreenSnapshot


@dataclass
class TuiParser:
    ctx: SpawnContext
    source: OutputSource
    state: tui.TerminalState = field(default_factory=tui.TerminalState)

    def feed(self, data: bytes) -> ParseResult:
        return tui.watch_stream(self.source, data, self.state)

    def quiet(self) -> ParseResult:
        return tui.grace_passed(self.state)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        hooks_file = home.hooks_file(self.ctx) if self.ctx.mode == "interactive" else None
        return tui.read_screen(self.source, snapshot, self.state, hooks_file)


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.format == "chunks":
        return TuiParser(ctx, source)
    if source.name == HEADLESS_SOURCE.name:
        return StatefulLineParser(source, headless.parse_headless, usage.HeadlessUsage())
    if source.name == usage.TRANSCRIPT_SOURCE_NAME:
        return StatefulLineParser(source, limits.read_transcript, limits.TranscriptMemory())
    return SessionLineParser(ctx, source, hooks_log.parse_hook, hooks_log.HookState(), hooks_log.HookState.at_rest)
