"""A screen model painted back into a terminal: the escapes that draw what it shows.

A full-screen TUI draws its whole screen once and then only what changes, so the last bytes
of its output are no picture of it: a terminal that starts from them (an attach) shows a
spinner and a timer and none of the frame around them. Painted from the host's model, the
terminal shows the screen as it stands: the alternate screen when the TUI is on it, every
cell in its colours and attributes, the cursor where it is and as visible as it is.
"""

from collections.abc import Iterator
from typing import Any

import pyte
from pyte.graphics import BG_AIXTERM, BG_ANSI, FG_AIXTERM, FG_ANSI
from wcwidth import wcwidth

# pyte keeps a private mode (`CSI ? n h`) as n << 5.
PRIVATE = 5
ALTERNATE_SCREENS = frozenset(mode << PRIVATE for mode in (47, 1047, 1049))
CURSOR_SHOWN = pyte.modes.DECTCEM
_FG = {name: code for code, name in {**FG_ANSI, **FG_AIXTERM}.items()}
_BG = {name: code for code, name in {**BG_ANSI, **BG_AIXTERM}.items()}
# SGR codes of the attributes pyte keeps, in the order its cells hold them.
_FLAGS = (("bold", 1), ("italics", 3), ("underscore", 4), ("blink", 5), ("reverse", 7), ("strikethrough", 9))


def on_alternate_screen(screen: pyte.Screen) -> bool:
    return bool(ALTERNATE_SCREENS & screen.mode)


def painting(screen: pyte.Screen, rows_at_once: int) -> Iterator[str]:
    """The text that draws `screen` on a terminal of its size, from whatever that showed, in
    parts of up to `rows_at_once` drawn rows: a caller lets other work run in between (a
    1000 × 1000 screen is a million cells)."""
    yield ("\x1b[?1049h" if on_alternate_screen(screen) else "") + "\x1b[0m\x1b[H\x1b[2J"
    numbers = sorted(row for row in screen.buffer if row < screen.lines)
    for at in range(0, len(numbers), rows_at_once):
        yield "".join(_placed_row(screen, number) for number in numbers[at : at + rows_at_once])
    cursor: Any = screen.cursor
    yield f"\x1b[0m\x1b[{cursor.y + 1};{min(cursor.x, screen.columns - 1) + 1}H"
    yield "\x1b[?25h" if CURSOR_SHOWN in screen.mode else "\x1b[?25l"


def _placed_row(screen: pyte.Screen, number: int) -> str:
    return f"\x1b[{number + 1};1H" + "".join(_row(screen.buffer[number], screen.columns))


def _row(line: Any, columns: int) -> Iterator[str]:
    """One row's cells, an SGR wherever the attributes change; the stub a wide character
    leaves in the next cell is the terminal's to draw."""
    if not line:
        return
    attributes, after_wide = None, False
    for column in range(min(max(line) + 1, columns)):
        if after_wide:
            after_wide = False
            continue
        cell = line[column]
        if cell[1:] != attributes:
            attributes = cell[1:]
            yield _sgr(cell)
        data = cell.data or " "
        after_wide = data >= "\u1100" and wcwidth(data[0]) == 2
        yield data


def _sgr(cell: Any) -> str:
    codes = ["0", *(str(code) for name, code in _FLAGS if getattr(cell, name))]
    codes += [_colour(cell.fg, _FG, 38), _colour(cell.bg, _BG, 48)]
    return f"\x1b[{';'.join(codes)}m"


def _colour(value: str, names: dict[str, int], extended: int) -> str:
    """A named colour's code, or a 256-colour or true colour one (pyte keeps both as hex)."""
    if value in names:
        return str(names[value])
    try:
        red, green, blue = (int(value[at : at + 2], 16) for at in (0, 2, 4))
    except ValueError:
        return str(names["default"])
    return f"{extended};2;{red};{green};{blue}" if len(value) == 6 else str(names["default"])
