"""OpenCode's TUI (`pty`): the ready footer and, as a fallback, the permission panel (1.18.33).

Turns and permissions come from the server's event stream (events.py); the screen decides
readiness (the server has no event for a drawn TUI) and reports a permission panel the stream
did not tell of (still there after a settle delay; permissions.py), and its closing.
"""

from dataclasses import dataclass, field

from wardian_core.parsing.escapes import squeeze
from wardian_core.parsing.events import event, screen_text
from wardian_core.parsing.markers import MarkerWatch
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.parsing.settled_box import BoxReport, SettledBox
from wardian_core.provider_models import OutputSource, ParseResult
from wardian_opencode.permissions import PermissionLedger
from wardian_opencode.profile import PERMISSION_DIALOG

READY = "ctrl+p commands"
PANEL = "Permission required"
PANEL_CHOICES = "Allow once"
PANEL_SETTLE_SECONDS = 1.0
# Reported once it stayed (the server's permission.asked usually did already); one the screen did
# not report was the stream's, and its permission.replied tells the answer.
PANEL_REPORT = BoxReport(
    dialog=PERMISSION_DIALOG,
    rule="permission panel",
    marker=PANEL,
    message="OpenCode asks for a permission",
    close_unreported=False,
)
READY_MARKERS = (squeeze(READY),)
# The panel draws its title before its choices: a look at either.
PANEL_MARKERS = (squeeze(PANEL), squeeze(PANEL_CHOICES))


@dataclass
class TerminalState:
    stream: MarkerWatch = field(default_factory=MarkerWatch)
    ready: bool = False
    panel: SettledBox = field(default_factory=lambda: SettledBox(PANEL_SETTLE_SECONDS))
    settled_look: bool = False
    # What the event stream told of permissions, and how much of it had been told at the last
    # look that showed no panel.
    permissions: PermissionLedger = field(default_factory=PermissionLedger)
    told_when_no_panel: int = 0
    panel_on_screen: bool = False


def watch_stream(data: bytes, state: TerminalState) -> ParseResult:
    # The footer is redrawn all the time: worth a look only until ready, or to see a panel gone.
    footer_worth_a_look = state.panel_on_screen or state.panel.shown or not state.ready
    markers = PANEL_MARKERS + (READY_MARKERS if footer_worth_a_look else ())
    return ParseResult(want_screen=state.stream.saw_any(data, markers))


def read_screen(source: OutputSource, screen: ScreenSnapshot, state: TerminalState) -> ParseResult:
    text = screen_text(screen.rows)
    settled, state.settled_look = state.settled_look, False
    shown = PANEL in text and PANEL_CHOICES in text
    # The panel draws its title before its choices: a look at a half-drawn one is no look without it.
    state.panel_on_screen = PANEL in text or PANEL_CHOICES in text
    if not state.panel_on_screen:
        state.told_when_no_panel = state.permissions.told
    # A panel the stream told of is the stream's to report and to close, even while a late
    # screen still shows it: to the fallback it is not there.
    told = state.permissions.told_of_panel(state.told_when_no_panel)
    if told and state.panel.reported:
        # The screen reported it first (the stream's ask was late): the stream's reply closes it.
        state.panel = SettledBox(PANEL_SETTLE_SECONDS)
    events, call_again = state.panel.events(source, shown and not told, settled, PANEL_REPORT)
    if READY in text and not shown and not state.ready:
        state.ready = True
        events.append(event("ready", source, "ready footer", READY))
    return ParseResult(events=events, call_again_after=call_again)


def settle_passed(state: TerminalState) -> ParseResult:
    if state.panel.due():
        state.settled_look = True
        return ParseResult(want_screen=True)
    return ParseResult()
