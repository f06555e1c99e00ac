"""The live preview: the selected agent's screen as `agent screen` answers it, redrawn when the
agent prints (the feed tells), at most PREVIEW_REDRAWS_PER_SECOND times a second."""

from typing import Any

from rich.text import Text
from textual.widgets import Static

from wardian_core.errors import WardianError
from wardian_host.tui.roster import RosterRow

PREVIEW_REDRAWS_PER_SECOND = 5


def screen_rows(row: RosterRow) -> list[str]:
    """The agent's visible rows, trailing blank ones dropped (blocks: run it in a worker)."""
    if row.machine != "local":
        from wardian_host.tui.actions import _remote

        answer: dict[str, Any] = _remote(["agent", "screen", row.key])
    else:
        from wardian_host.answers.screens import screen_answer

        answer = screen_answer(row.name)
    rows = [line.rstrip() for line in answer["screen"]["rows"]]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def not_shown(row: RosterRow, error: WardianError) -> str:
    return f"{row.key} is {row.status}: {error.message}"


class Preview(Static):
    """The last rows of the screen that fit the panel."""

    DEFAULT_CSS = """
    Preview { height: 1fr; min-height: 3; border: round $secondary; padding: 0 1; }
    """

    _rows: list[str] | None = None

    def show_rows(self, title: str, rows: list[str]) -> None:
        self.border_title = title
        self._rows = rows
        self._draw()

    def on_resize(self) -> None:
        if self._rows is not None:
            self._draw()

    def _draw(self) -> None:
        """The bottom of the screen, where a CLI's prompt and dialogs are, as many rows as fit."""
        rows = self._rows or []
        height = max(self.content_size.height, 1)
        # Text, not markup: an agent's screen may hold `[` anywhere.
        self.update(Text("\n".join(rows[-height:]) if rows else "(a blank screen)"))

    def show_text(self, title: str, text: str) -> None:
        self.border_title = title
        self._rows = None
        self.update(Text(text))
