"""Codex output → provider events: the parser of each source, holding its own memory.

- `pty` (`tui`): the TUI's screen: readiness, the trust dialog, the command approval dialog.
- `codex-hooks` (`hooks_log`): the payloads of Wardian's hooks: turns, tools, the thread.
- `thread-locks`, `sessions` (`sessions`): the files that tell the thread id, then that its
  rollout exists.
- `rollout` / `rollout-resumed` (`rollout`): the interactive session's own log.
- `headless` (`headless`): `codex exec --json`.
"""

from dataclasses import dataclass, field
from pathlib import Path

from wardian_codex import headless, hooks, hooks_log, rollout, sessions, tui
from wardian_core.parsing.line_parsers import SessionLineParser, StatefulLineParser
from wardian_core.provider import HEADLESS_SOURCE, OutputSource, ParseResult, SourceParser, SpawnContext, hookimpl
from wardian_core.provider.parsing import ScreenSnapshot


@dataclass
class TuiParser:
    ctx: SpawnContext
    source: OutputSource
    state: tui.TerminalState = field(default_factory=tui.TerminalState)

    def feed(self, data: bytes) -> ParseResult:
        return tui.watch_stream(data, self.state)

    def quiet(self) -> ParseResult:
        thread_started = self.ctx.provider_session_id is not None
        return tui.settle_passed(self.source, self.state, self._hooks_file(), thread_started)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        return tui.read_screen(self.source, snapshot, self.state, self._hooks_file())

    def _hooks_file(self) -> Path | None:
        return hooks.hooks_file(self.ctx) if self.ctx.mode == "interactive" else None


@dataclass
class LocksParser:
    ctx: SpawnContext
    source: OutputSource
    state: sessions.LockState = field(default_factory=sessions.LockState)

    def feed(self, data: bytes) -> ParseResult:
        return sessions.lock_appeared(self.ctx, self.source, data, self.state)


class SessionsParser:
    def feed(self, data: bytes) -> ParseResult:
        return sessions.rollout_appeared()


@hookimpl(specname="parse_output")
def parser_for(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    if source.name == HEADLESS_SOURCE.name:
        return StatefulLineParser(source, headless.parse_headless, headless.HeadlessState())
    if source.format == "chunks":
        return TuiParser(ctx, source)
    if source.name == sessions.LOCKS_SOURCE:
        return LocksParser(ctx, source)
    if source.name == hooks.HOOKS_SOURCE:
        return SessionLineParser(ctx, source, hooks_log.parse_hook, hooks_log.HookState(), hooks_log.HookState.at_rest)
    if source.name == sessions.SESSIONS_SOURCE:
        return SessionsParser()
    return StatefulLineParser(source, rollout.parse_rollout, rollout.RolloutState())
