"""Claude Code output → provider events. Never raises on bad input.

Three sources, each with its own state:

- `claude-hooks` (primary, `hooks_log`): the JSONL our hooks append.
- `pty` (`tui`): the TUI's screen — readiness, first-run screens, a rejected approval.
- `headless` (`stream_json`): `-p --output-format stream-json --verbose` lines.
"""

from typing import Any

from wardian_claude import home, hooks_log, stream_json, tui
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext


def state_class(source: OutputSource) -> type | None:
    if source.format == "chunks":
        return tui.ScreenState
    return None if source.name == "headless" else hooks_log.HookState


def parse(ctx_session_id: str | None, source: OutputSource, data: bytes, state: Any) -> ParseResult:
    try:
        if isinstance(state, tui.ScreenState):
            return tui.watch_stream(source, data, state)
        if isinstance(state, hooks_log.HookState):
            return hooks_log.parse_hook(ctx_session_id, source, data, state)
        return stream_json.parse_stream_line(source, data)
    except Exception:  # noqa: BLE001 - a parser must never take an agent down with it
        return ParseResult()


def quiet(state: Any) -> ParseResult:
    return tui.grace_passed(state) if isinstance(state, tui.ScreenState) else ParseResult()


def screen(ctx: SpawnContext, source: OutputSource, snapshot: ScreenSnapshot, state: Any) -> ParseResult:
    if not isinstance(state, tui.ScreenState):
        return ParseResult()
    hooks_file = home.hooks_file(ctx) if ctx.mode == "interactive" else None
    try:
        return tui.read_screen(source, snapshot, state, hooks_file)
    except Exception:  # noqa: BLE001 - as in parse
        return ParseResult()
