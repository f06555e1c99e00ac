"""Gemini CLI's TUI (`pty`): the ready prompt and the tool approval box (0.61.0).

The stream only says when to look (a marker in its squeezed text); the rules read the screen
as a person sees it. Turns and tools come from the hooks (hooks_log.py); the screen decides
readiness (with the SessionStart hook) and is the fallback for the approval box.
"""

from dataclasses import dataclass, field
from pathlib import Path

from wardian_core.parsing.escapes import squeeze
from wardian_core.parsing.events import event, screen_text
from wardian_core.parsing.markers import MarkerWatch
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.parsing.settle import Settle
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent
from wardian_gemini.hooks_log import session_started
from wardian_gemini.profile import TOOL_DIALOG

READY = "Type your message or @path/to/file"
APPROVAL = "Allow once"
APPROVAL_SETTLE_SECONDS = 0.5
# The prompt is redrawn all the time: worth a look only until ready, or to see a box gone.
READY_MARKERS = (squeeze(READY),)
BOX_MARKERS = (squeeze(APPROVAL),)


@dataclass
class TerminalState:
    stream: MarkerWatch = field(default_factory=MarkerWatch)
    ready: bool = False
    box_shown: bool = False
    box_reported: bool = False
    box_settle: Settle = field(default_factory=lambda: Settle(APPROVAL_SETTLE_SECONDS))
    settled_look: bool = False


def watch_stream(data: bytes, state: TerminalState) -> ParseResult:
    markers = BOX_MARKERS + (READY_MARKERS if state.box_shown or not state.ready else ())
    return ParseResult(want_screen=state.stream.saw_any(data, markers))


def read_screen(
    source: OutputSource, screen: ScreenSnapshot, state: TerminalState, hooks_file: Path | None
) -> ParseResult:
    """`hooks_file`: the agent's hook log (None in a replay: the screen alone decides)."""
    text = screen_text(screen.rows)
    settled, state.settled_look = state.settled_look, False
    events, call_again = _approval_box(source, APPROVAL in text, settled, state)
    if READY in text and APPROVAL not in text and not state.ready:
        events += _ready(source, hooks_file, state)
    return ParseResult(events=events, call_again_after=call_again)


def settle_passed(state: TerminalState) -> ParseResult:
    """The box's settle delay passed: look again, to report it if it is still there."""
    if state.box_settle.due() and state.box_shown:
        state.settled_look = True
        return ParseResult(want_screen=True)
    return ParseResult()


def _ready(source: OutputSource, hooks_file: Path | None, state: TerminalState) -> list[ProviderEvent]:
    started = session_started(hooks_file)
    if started is False:
        return []  # the hook's arrival asks for another look
    state.ready = True
    rule = "ready prompt after hook SessionStart" if started else "ready prompt"
    return [event("ready", source, rule, READY)]


def _approval_box(
    source: OutputSource, shown: bool, settled: bool, state: TerminalState
) -> tuple[list[ProviderEvent], float | None]:
    if shown and not state.box_shown:
        state.box_shown, state.box_reported = True, False
        return [], state.box_settle.start()
    if shown and settled and not state.box_reported:
        # Still there once settled: report it (the ToolPermission hook usually did already).
        state.box_reported = True
        asked = event(
            "approval_requested",
            source,
            "approval box",
            APPROVAL,
            message="Gemini asks before running a tool",
            reason="tool",
            dialog=TOOL_DIALOG,
        )
        return [asked], None
    if not shown and state.box_shown:
        state.box_shown = False
        state.box_settle.cancel()
        return [event("approval_resolved", source, "approval box closed", APPROVAL)], None
    return [], None
