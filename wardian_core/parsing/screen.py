"""A terminal screen model: the visible rows as a person sees them, from the PTY stream.

The stream alone loses layout: a TUI moves the cursor instead of printing spaces, so
stripping escapes turns `Trust this folder?` into `Trustthisfolder?`. A terminal
emulator (pyte: a VT100/xterm emulator in pure Python, maintained, with wide-character
and alternate-screen support) replays the stream into rows, cursor and title.
"""

from collections.abc import Iterator
from typing import Any

import pyte
from pydantic import BaseModel, ConfigDict
from wcwidth import wcwidth

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS, terminal_side


class ScreenSnapshot(BaseModel):
    """What `wardian agent screen` reports: the visible rows and where the cursor is."""

    model_config = ConfigDict(extra="forbid")

    rows: list[str]
    cursor: dict[str, int]
    title: str
    size: dict[str, int]


# Distinct cells (a character in its attributes) kept for sharing; more are made afresh.
SHARED_CELLS = 8192
_shared_cells: dict[tuple[Any, ...], "_Cell"] = {}


class _Cell(pyte.screens.Char):
    """A screen cell shared by every cell of equal character and attributes.

    pyte makes a new `Char` for each character drawn, and a `Char` (a tuple subclass) stays
    tracked by the garbage collector for as long as it lives: fifty agents' screens held
    240,000 of them, and each full collection walked them all (~150 ms, `benchmarks/host.py`
    (e)). Cells are values, so equal ones can be one object: a screen then holds a few hundred.
    """

    __slots__ = ()

    def _replace(self, /, **changes: Any) -> "_Cell":
        key = (self, *changes.items())
        cell = _shared_cells.get(key)
        if cell is None:
            if len(_shared_cells) >= SHARED_CELLS:
                _shared_cells.clear()  # an unusual variety of text: share afresh
            cell = _shared_cells[key] = super()._replace(**changes)
        return cell


_BLANK = {reverse: _Cell(data=" ", fg="default", bg="default", reverse=reverse) for reverse in (False, True)}


class _Screen(pyte.Screen):
    @property
    def default_char(self) -> _Cell:
        """pyte's blank cell, shared: every cell drawn is made from it or from the cursor's."""
        return _BLANK[pyte.modes.DECSCNM in self.mode]

    def reset(self) -> None:
        super().reset()
        self.cursor.attrs = self.default_char  # pyte's reset draws with a plain `Char`

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """A private-marked `CSI ? … m` is no rendition: pyte passes it here with `private`, and
        the plain Screen raised TypeError mid-stream (Gemini CLI 0.61's start-up output did)."""
        if not private:
            super().select_graphic_rendition(*attrs)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        """Erased rows are dropped, not refilled: pyte wrote the cursor's attributes into every
        cell it erased, a million cells per `ESC[2J` on a 1000×1000 screen, and the model keeps
        text only, which a missing cell reads as blank. An unknown `how` (pyte raised) is ignored."""
        if how not in (0, 1, 2, 3):
            return
        erased = {0: range(self.cursor.y + 1, self.lines), 1: range(self.cursor.y)}.get(how, range(self.lines))
        self.dirty.update(erased)
        for row in erased:
            self.buffer.pop(row, None)
        if how in (0, 1):
            self.erase_in_line(how)


class ScreenModel:
    def __init__(self, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> None:
        self._screen = _Screen(terminal_side(cols), terminal_side(rows))
        # ByteStream decodes UTF-8 incrementally: a character split across reads stays whole.
        self._stream = pyte.ByteStream(self._screen)

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)

    def resize(self, rows: int, cols: int) -> None:
        self._screen.resize(terminal_side(rows), terminal_side(cols))

    def plain_text_scrolls(self) -> bool:
        """Whether plain text fed now draws as `scrolled_off` assumes: no escape sequence under
        way, lines that wrap, characters that overwrite, a line feed that scrolls every row."""
        screen = self._screen
        margins = screen.margins
        return (
            bool(self._stream._taking_plain_text)  # pyte's parser is at rest, not inside a sequence
            and pyte.modes.DECAWM in screen.mode
            and pyte.modes.IRM not in screen.mode
            and (margins is None or (margins.top == 0 and margins.bottom == screen.lines - 1))
        )

    @property
    def size(self) -> tuple[int, int]:
        return int(self._screen.lines), int(self._screen.columns)

    def rows(self, first: int = 0, end: int | None = None) -> list[str]:
        """The visible rows (from `first`, before `end`), trailing blanks of each row dropped."""
        return [self._row(number) for number in range(first, min(end or self.size[0], self.size[0]))]

    def _row(self, number: int) -> str:
        """pyte's `display` of one row, reading only the cells drawn: `display` read every cell
        of the screen, 0.9 s for a blank 1000×1000 one."""
        line = self._screen.buffer.get(number)  # `get`: the buffer makes a row it is asked for
        if not line:
            return ""
        text, after_wide = [], False
        for column in range(min(max(line) + 1, self._screen.columns)):
            if after_wide:  # the stub cell a two-cell character leaves
                after_wide = False
                continue
            data = line[column].data
            after_wide = data >= "\u1100" and wcwidth(data[0]) == 2  # no narrower code point is wide
            text.append(data)
        return "".join(text).rstrip()

    def painting(self, rows_at_once: int) -> Iterator[str]:
        """The text that draws this screen on a terminal of its size, a few rows at a time
        (`screen_paint`)."""
        from wardian_core.parsing.screen_paint import painting

        return painting(self._screen, rows_at_once)

    def on_alternate_screen(self) -> bool:
        """Whether a full-screen program switched to the alternate screen (and has not left it)."""
        from wardian_core.parsing.screen_paint import on_alternate_screen

        return on_alternate_screen(self._screen)

    def text(self) -> str:
        """The visible rows as one text, blank rows at the bottom dropped."""
        return "\n".join(self.rows()).rstrip("\n")

    def snapshot(self, rows: list[str] | None = None) -> ScreenSnapshot:
        """What the screen shows; `rows` when the caller read them already (in slices)."""
        cursor: Any = self._screen.cursor
        lines, cols = self.size
        return ScreenSnapshot(
            rows=self.rows() if rows is None else rows,
            cursor={"row": int(cursor.y), "col": int(cursor.x)},
            title=str(self._screen.title or ""),
            size={"rows": lines, "cols": cols},
        )
