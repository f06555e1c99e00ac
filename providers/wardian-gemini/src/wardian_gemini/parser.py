"""Gemini CLI output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): readiness and the tool approval box, read from the screen.
- `gemini-hooks` (`hooks_log`): turns, tools, approvals and the session, from Wardian's hooks.
- `gemini-chats`, `gemini-session-log` (`usage`): the session's log, for each call's tokens.
- `headless` (`headless`): `gemini --output-format stream-json`.
"""

import os
from dataclasses import dataclass, field

from wardian_core.provider import OutputSource, ParseResult, SourceParser, SpawnContext, hookimpl
from wardian_core.provider.parsing import ScreenSnapshot
from wardian_gemini import headless, home, hooks_log, trust, tui, usage


@dataclass
class TuiParser:
    ctx: SpawnContext
    source: OutputSource
    state: tui.TerminalState = field(default_factory=tui.TerminalState)

    def feed(self, data: bytes) -> ParseResult:
        return tui.watch_stream(data, self.state)

    def quiet(self) -> ParseResult:
        return tui.settle_passed(self.state)

    def _workspace_decision(self) -> str | None:
        return trust.workspace_decision(home.user_gemini_dir(), os.environ, self.ctx.workspace)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        hooks_file = home.hooks_file(self.ctx) if self.ctx.mode == "interactive" else None
        if self.state.workspace.expected is None:
            # Looked up once, at the first look (an answer rewrites the file later in the launch);
            # a replay of recorded bytes has no hook log and the screen alone decides.
            self.state.workspace.expected = (
                hooks_file is not None
                and hooks_file.exists()
                and trust.question_expected(home.user_gemini_dir(), os.environ, self.ctx.workspace)
            )
            if self.state.workspace.expected:
                self.state.workspace.decision = self._workspace_decision
        resumed = self.ctx.session_mode == "resume"
        return tui.read_screen(self.source, snapshot, self.state, hooks_file, resumed=resumed)


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.format == "chunks":
        return TuiParser(ctx, source)
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
