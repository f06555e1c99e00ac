"""A dialog box read from the screen as the fallback behind a structured signal: it counts once it
has stayed a while (a box drawn for a moment, or one a hook already told of, is not reported at
once), and it is closed once it has stayed away as long (a TUI repaints a box in pieces, and a
look between two pieces must not close it)."""

from dataclasses import dataclass, field
from typing import Literal

from wardian_core.parsing.events import event
from wardian_core.parsing.settle import Settle
from wardian_core.provider_models import OutputSource, ProviderEvent

BoxStep = Literal["report", "closed"] | None


@dataclass(frozen=True)
class BoxReport:
    """How an approval box read from the screen is reported: the dialog it names (the keys that
    answer it), the rule and marker its evidence shows, the message of its request."""

    dialog: str
    rule: str
    marker: str
    message: str
    # False where another source (an event stream) reports the boxes the screen did not, and
    # their answers: closing one of those says nothing.
    close_unreported: bool = True


@dataclass
class SettledBox:
    seconds: float
    shown: bool = False
    reported: bool = False
    closing: bool = False
    settle: Settle = field(init=False)

    def __post_init__(self) -> None:
        self.settle = Settle(self.seconds)

    def look(self, shown: bool, settled: bool) -> tuple[BoxStep, float | None]:
        """What a look at the screen means for the box, and the delay to look again after (if any).

        `settled`: this look was asked for by the settle delay coming due."""
        if shown and not self.shown:
            self.shown, self.reported, self.closing = True, False, False
            return None, self.settle.start()
        if shown and self.closing:
            self.closing = False  # back: it was a repaint
            return None, None if self.reported else self.settle.start()
        if shown and settled and not self.reported:
            self.reported = True
            return "report", None
        if not shown and self.shown and not self.closing:
            self.closing = True
            return None, self.settle.start()
        if not shown and self.closing and settled:
            self.shown = self.closing = False
            return "closed", None
        return None, None

    def due(self) -> bool:
        """In the quiet call: the box is still up after its settle delay, so look again."""
        return self.settle.due() and self.shown

    def events(
        self, source: OutputSource, shown: bool, settled: bool, report: BoxReport
    ) -> tuple[list[ProviderEvent], float | None]:
        """A look at an approval box as events: its request once it settled, its close; else the
        delay to look again after."""
        step, call_again = self.look(shown, settled)
        if step == "report":
            asked = event(
                "approval_requested",
                source,
                report.rule,
                report.marker,
                message=report.message,
                reason="tool",
                dialog=report.dialog,
            )
            return [asked], None
        if step == "closed" and (report.close_unreported or self.reported):
            return [event("approval_resolved", source, f"{report.rule} closed", report.marker)], None
        return [], call_again
