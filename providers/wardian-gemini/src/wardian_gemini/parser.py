"""Gemini CLI output → provider events. One parser per source; never raises (`never_raises`).

- `pty` (`tui`): readiness and the tool approval box, read from the screen.
- `gemini-hooks` (`hooks_log`): turns, tools, approvals and the session, from Wardian's hooks.
- `headless` (`headless`): `gemini --output-format stream-json`.
"""

import os
from pathlib import Path
from typing import Any

from wardian_core.parsing.guard import never_raises
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_gemini import headless, home, hooks_log, trust, tui


def state_class(source: OutputSource) -> type | None:
    if source.format == "chunks":
        return tui.TerminalState
    if source.name == home.HOOKS_SOURCE:
        return hooks_log.HookState
    return None


def _hooks_file(ctx: SpawnContext) -> Path | None:
    return home.hooks_file(ctx) if ctx.mode == "interactive" else None


@never_raises
def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: Any) -> ParseResult:
    if isinstance(state, tui.TerminalState):
        return tui.watch_stream(data, state)
    if isinstance(state, hooks_log.HookState):
        return hooks_log.parse_hook(ctx.provider_session_id, source, data, state)
    return headless.parse_headless(source, data)


def quiet(state: Any) -> ParseResult:
    return tui.settle_passed(state) if isinstance(state, tui.TerminalState) else ParseResult()


@never_raises
def screen(ctx: SpawnContext, source: OutputSource, snapshot: ScreenSnapshot, state: Any) -> ParseResult:
    if not isinstance(state, tui.TerminalState):
        return ParseResult()
    hooks_file = _hooks_file(ctx)
    if state.workspace.expected is None:
        # Looked up once, at the first look (an answer rewrites the file later in the launch);
        # a replay of recorded bytes has no hook log and the screen alone decides.
        state.workspace.expected = (
            hooks_file is not None
            and hooks_file.exists()
            and trust.question_expected(home.user_gemini_dir(), os.environ, ctx.workspace)
        )
    return tui.read_screen(source, snapshot, state, hooks_file, resumed=ctx.session_mode == "resume")


def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    return [OutputSource(name=home.HOOKS_SOURCE, kind="file", path=home.hooks_file(ctx))]
