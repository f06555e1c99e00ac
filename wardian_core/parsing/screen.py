"""A terminal screen model: the visible rows as a person sees them, from the PTY stream.

The stream alone loses layout: a TUI moves the cursor instead of printing spaces, so
stripping escapes turns `Trust this folder?` into `Trustthisfolder?`. A terminal
emulator (pyte: a VT100/xterm emulator in pure Python, maintained, with wide-character
and alternate-screen support) replays the stream into rows, cursor and title.
"""

from typing import Any

import pyte
from pydantic import BaseModel, ConfigDict

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS, terminal_side


class ScreenSnapshot(BaseModel):
    """What `wardian agent screen` reports: the visible rows and where the cursor is."""

    model_config = ConfigDict(extra="forbid")

    rows: list[str]
    cursor: dict[str, int]
    title: str
    size: dict[str, int]


class _Screen(pyte.Screen):
    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """A private-marked `CSI ? … m` is no rendition: pyte passes it here with `private`, and
        the plain Screen raised TypeError mid-stream (Gemini CLI 0.61's start-up output did)."""
        if not private:
            super().select_graphic_rendition(*attrs)


class ScreenModel:
    def __init__(self, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> None:
        self._screen = _Screen(terminal_side(cols), terminal_side(rows))
        # ByteStream decodes UTF-8 incrementally: a character split across reads stays whole.
        self._stream = pyte.ByteStream(self._screen)

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)

    def resize(self, rows: int, cols: int) -> None:
        self._screen.resize(terminal_side(rows), terminal_side(cols))

    @property
    def size(self) -> tuple[int, int]:
        return int(self._screen.lines), int(self._screen.columns)

    def rows(self) -> list[str]:
        """The visible rows, trailing blanks of each row dropped."""
        return [row.rstrip() for row in self._screen.display]

    def text(self) -> str:
        """The visible rows as one text, blank rows at the bottom dropped."""
        return "\n".join(self.rows()).rstrip("\n")

    def snapshot(self) -> ScreenSnapshot:
        cursor: Any = self._screen.cursor
        rows, cols = self.size
        return ScreenSnapshot(
            rows=self.rows(),
            cursor={"row": int(cursor.y), "col": int(cursor.x)},
            title=str(self._screen.title or ""),
            size={"rows": rows, "cols": cols},
        )
