"""OpenCode's TUI (`pty`): the ready footer and, as a fallback, the permission panel (1.18.33).

Turns and permissions come from the server's event stream (events.py); the screen decides
readiness (the server has no event for a drawn TUI) and reports a permission panel the stream
did not tell of (still there after a settle delay; permissions.py), and its closing.
"""

from wardian_core.provider import OutputSource, ParseResult, SpawnContext
from wardian_core.provider.parsing import BoxReport, ScreenParser, SettledBox, squeeze
from wardian_opencode.permissions import PermissionLedger
from wardian_opencode.profile import PANEL_CHOICES, PERMISSION_DIALOG

READY = "ctrl+p commands"
PANEL = "Permission required"
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


class OpenCodeScreen(ScreenParser):
    """Readiness from the footer; the permission panel as the event stream's fallback."""

    def __init__(
        self, source: OutputSource, ctx: SpawnContext | None = None, permissions: PermissionLedger | None = None
    ) -> None:
        super().__init__(source, ctx)
        self.panel = SettledBox(PANEL_SETTLE_SECONDS)
        # What the event stream told of permissions, and how much of it had been told at the last
        # look that showed no panel.
        self.permissions = permissions if permissions is not None else PermissionLedger()
        self.told_when_no_panel = 0
        self.panel_on_screen = False

    def markers(self) -> tuple[str, ...]:
        # The footer is redrawn all the time: worth a look only until ready, or to see a panel gone.
        footer_worth_a_look = self.panel_on_screen or self.panel.shown or not self.ready
        return PANEL_MARKERS + (READY_MARKERS if footer_worth_a_look else ())

    def read(self, rows: list[str], text: str, settled: bool) -> ParseResult:
        shown = PANEL in text and PANEL_CHOICES in text
        # The panel draws its title before its choices: a look at a half-drawn one is no look without it.
        self.panel_on_screen = PANEL in text or PANEL_CHOICES in text
        if not self.panel_on_screen:
            self.told_when_no_panel = self.permissions.told
        # A panel the stream told of is the stream's to report and to close, even while a late
        # screen still shows it: to the fallback it is not there.
        told = self.permissions.told_of_panel(self.told_when_no_panel)
        if told and self.panel.reported:
            # The screen reported it first (the stream's ask was late): the stream's reply closes it.
            self.panel = SettledBox(PANEL_SETTLE_SECONDS)
        events, call_again = self.panel.events(self.source, shown and not told, settled, PANEL_REPORT)
        if READY in text and not shown and not self.ready:
            events.append(self.became_ready("ready footer", READY))
        return ParseResult(events=events, call_again_after=call_again)

    def quiet(self) -> ParseResult:
        return self.look_when_settled() if self.panel.due() else ParseResult()
