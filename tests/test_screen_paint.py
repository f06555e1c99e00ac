"""A screen model painted into a terminal shows what the model shows, cell for cell."""

from typing import Any

import pytest

from wardian_core.parsing.screen import ScreenModel

# A full-screen TUI's frame: the alternate screen, named, 256 and true colours, attributes, a
# wide character, the cursor hidden and placed, then a change to one spot of it.
FRAME = (
    b"\x1b[?1049h\x1b[?25l\x1b[2J\x1b[H"
    b"\x1b[1;31mtitle\x1b[0m \x1b[38;5;200;48;2;1;2;3mpink on rgb\x1b[0m"
    b"\x1b[3;5H\x1b[4;7m\xe4\xb8\xad under\x1b[0m \x1b[92;104mbright\x1b[0m"
    b"\x1b[40;1H\x1b[2mctrl+p commands\x1b[0m\x1b[39;120Hx"
    b"\x1b[3;5H\x1b[9mnew\x1b[0m\x1b[20;10H"
)


def cells(model: ScreenModel) -> dict[tuple[int, int], Any]:
    screen: Any = model._screen
    return {
        (row, column): tuple(line[column])
        for row, line in screen.buffer.items()
        for column in line
        if line[column].data not in ("", " ") or line[column].bg != "default"
    }


@pytest.mark.parametrize(("size", "rows_at_once"), [((40, 120), 1), ((40, 120), 40), ((12, 30), 5)])
def test_a_painted_screen_fed_to_a_blank_terminal_draws_the_same_cells(
    size: tuple[int, int], rows_at_once: int
) -> None:
    drawn = ScreenModel(*size)
    drawn.feed(FRAME)

    terminal = ScreenModel(*size)
    terminal.feed(b"\x1b[31mwhatever the terminal showed before\r\n" * 50)
    terminal.feed("".join(drawn.painting(rows_at_once)).encode())

    assert terminal.rows() == drawn.rows() and cells(terminal) == cells(drawn)
    assert terminal.snapshot().cursor == drawn.snapshot().cursor
    assert terminal.on_alternate_screen() and drawn.on_alternate_screen()
    screen: Any = terminal._screen
    assert (25 << 5) not in screen.mode  # the cursor stays hidden, as the TUI left it


def test_the_main_screen_is_no_alternate_one() -> None:
    model = ScreenModel()
    model.feed(b"$ ls\r\nfile\r\n")
    assert not model.on_alternate_screen()
    model.feed(b"\x1b[?1049h\x1b[?1049l")
    assert not model.on_alternate_screen()
