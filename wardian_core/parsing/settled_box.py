"""A dialog box read from the screen as the fallback behind a structured signal: it counts once it
has stayed a while (a box drawn for a moment, or one a hook already told of, is not reported at
once), and it is closed once it has stayed away as long (a TUI repaints a box in pieces, and a
look between two pieces must not close it)."""

from dataclasses import dataclass, field
from typing import Literal

from wardian_core.parsing.settle import Settle

BoxStep = Literal["report", "closed"] | None


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
