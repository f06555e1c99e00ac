"""The screen model: rows as a person sees them, replayed lazily from the output buffer."""

import asyncio
import gc

import pyte
import pytest

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS, MAX_TERMINAL_SIDE
from wardian_core.parsing import screen as screen_module
from wardian_core.parsing.screen import ScreenModel
from wardian_host.output import screen as lazy_screen_module
from wardian_host.output.buffer import OutputBuffer
from wardian_host.output.screen import CELLS_READ_AT_ONCE, REPLAY_LIMIT_BYTES, LazyScreen


def test_cursor_movement_becomes_the_spaces_a_person_sees() -> None:
    screen = ScreenModel(rows=5, cols=40)
    # Codex 0.169.0 draws its trust dialog by moving the cursor, not by printing spaces.
    screen.feed(b"\x1b[2J\x1b[1;1HTrust\x1b[1Cthis\x1b[1Cfolder?\x1b[3;3H> 1. Yes")
    assert screen.rows()[:3] == ["Trust this folder?", "", "  > 1. Yes"]
    assert screen.snapshot().cursor == {"row": 2, "col": 10}


def test_title_size_and_a_character_split_across_reads() -> None:
    screen = ScreenModel(rows=3, cols=10)
    check = "✓".encode()
    screen.feed(b"\x1b]0;my title\x07" + check[:1])
    screen.feed(check[1:] + b" ok")
    snapshot = screen.snapshot()
    assert snapshot.rows == ["✓ ok", "", ""]
    assert snapshot.title == "my title"
    assert snapshot.size == {"rows": 3, "cols": 10}


def test_a_private_sgr_sequence_is_ignored_not_fatal() -> None:
    screen = ScreenModel(rows=2, cols=30)
    # pyte hands `CSI ? … m` to select_graphic_rendition with `private`, which raised; Gemini
    # CLI 0.61's start-up output made the screen model raise this way.
    screen.feed(b"\x1b[?4m\x1b[1mType your\x1b[0m message\x1b[?4;2m")
    assert screen.rows() == ["Type your message", ""]


def test_a_redraw_replaces_what_was_there() -> None:
    screen = ScreenModel(rows=2, cols=20)
    screen.feed(b"working...\r\x1b[2K> ")
    assert screen.text() == ">"


def test_lazy_screen_reads_only_what_arrived_since_the_last_look() -> None:
    buffer = OutputBuffer(1024)
    buffer.append(b"before launch\r\n")
    screen = LazyScreen(buffer)
    screen.restart()  # a new process starts on a blank screen
    buffer.append(b"first\r\n")
    assert asyncio.run(screen.snapshot()).rows[:2] == ["first", ""]
    buffer.append(b"second")
    assert asyncio.run(screen.snapshot()).rows[:2] == ["first", "second"]


def test_a_lazy_screen_makes_its_emulator_at_its_first_look_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[int, ...]] = []

    def counted(*size: int) -> ScreenModel:
        made.append(size)
        return ScreenModel(*size)

    monkeypatch.setattr(lazy_screen_module, "ScreenModel", counted)
    buffer = OutputBuffer(1024)
    screens = [LazyScreen(buffer) for _ in range(100)]  # a hundred idle agents nobody looks at
    buffer.append(b"hello")
    screens[0].resize(10, 30)
    screens[0].restart()
    buffer.append(b"\x1b[2J\x1b[Hafter")
    assert made == []
    snapshot = asyncio.run(screens[0].snapshot())
    assert made == [()] and snapshot.rows[0] == "after"
    assert snapshot.size == {"rows": DEFAULT_ROWS, "cols": DEFAULT_COLS}  # the resize went with the restart


def test_lazy_screen_starts_over_from_the_oldest_kept_byte_when_output_was_dropped() -> None:
    buffer = OutputBuffer(16)
    screen = LazyScreen(buffer)
    buffer.append(b"old old old old old\r\n")  # more than the buffer keeps, never looked at
    buffer.append(b"\x1b[2J\x1b[Hnew")
    assert asyncio.run(screen.snapshot()).rows[0] == "new"


def test_resize_keeps_what_was_drawn_at_the_old_size() -> None:
    buffer = OutputBuffer(1024)
    screen = LazyScreen(buffer)
    buffer.append(b"hello")
    screen.resize(10, 30)
    snapshot = asyncio.run(screen.snapshot())
    assert snapshot.size == {"rows": 10, "cols": 30}
    assert snapshot.rows[0] == "hello"


def test_a_screen_far_behind_replays_only_the_last_stretch_of_output() -> None:
    buffer = OutputBuffer(4 * REPLAY_LIMIT_BYTES)
    screen = LazyScreen(buffer)
    buffer.append(b"first line, long ago\r\n")
    buffer.append(b"x" * (2 * REPLAY_LIMIT_BYTES))
    buffer.append(b"\x1b[2J\x1b[Hlatest")
    rows = asyncio.run(screen.snapshot()).rows
    assert rows[0] == "latest"
    assert not any("long ago" in row for row in rows)


def test_resizes_between_looks_apply_where_they_happened_in_the_output() -> None:
    buffer = OutputBuffer(1024)
    screen = LazyScreen(buffer)
    buffer.append(b"0123456789ABCDEF")  # one row of 16 at the default width
    screen.resize(5, 8)
    buffer.append(b"\r\nabcdefghij")  # drawn at width 8: wraps
    rows = asyncio.run(screen.snapshot()).rows
    assert rows[:3] == ["01234567", "abcdefgh", "ij"]


def test_rows_read_from_drawn_cells_match_what_pyte_displays() -> None:
    screen = ScreenModel(rows=6, cols=12)
    # wide characters and their stub cells, a wide one cut by a narrow one, a cleared row
    screen.feed("漢字ok\r\n日x本\r\n\x1b[3;5Hmid\r\nlost\x1b[2K\r\n\x1b[6;10Hend".encode())
    screen.feed(b"\x1b[2;2Hz")  # over the second half of a wide character
    expected = [row.rstrip() for row in screen._screen.display]
    assert screen.rows() == expected
    assert screen.rows(2, 4) == expected[2:4]


@pytest.mark.parametrize("erase", [b"\x1b[0J", b"\x1b[J", b"\x1b[1J", b"\x1b[2J", b"\x1b[3J"])
def test_an_erase_clears_what_pyte_would(erase: bytes) -> None:
    drawing = b"one\r\ntwo\r\nthree\r\nfour\x1b[3;3H" + erase + b"!"
    screen, plain = ScreenModel(rows=4, cols=10), pyte.Screen(10, 4)
    screen.feed(drawing)
    pyte.ByteStream(plain).feed(drawing)
    assert screen.rows() == [row.rstrip() for row in plain.display]


def _lettered_screen(rows: int, cols: int) -> tuple[bytes, list[str]]:
    """Every cell drawn, in seven colours: what it draws, and the rows a person reads."""
    text = ["".join(chr(97 + (row + col) % 26) for col in range(cols)) for row in range(rows)]
    drawing = b"".join(
        b"\x1b[%d;1H\x1b[%dm%s" % (row + 1, 31 + row % 7, line.encode()) for row, line in enumerate(text)
    )
    return drawing, text


def test_a_full_screen_shares_its_cells_so_a_collection_has_little_to_walk() -> None:
    screen = ScreenModel()
    rows, cols = screen.size
    drawing, text = _lettered_screen(rows, cols)
    gc.collect()
    before = len(gc.get_objects())
    screen.feed(drawing)
    gc.collect()
    # A cell per object would be rows x cols tracked objects, each walked by every full collection.
    assert len(gc.get_objects()) - before < rows * cols // 4
    assert screen.rows() == text


def test_shared_cells_are_bounded_and_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(screen_module, "SHARED_CELLS", 16)
    screen, plain = ScreenModel(rows=8, cols=40), pyte.Screen(40, 8)
    drawing, _ = _lettered_screen(8, 40)
    drawing += "\x1b[?5h\x1b[8;1H\x1b[2K\u6f22\u5b57 reversed".encode()  # a reverse-video screen, wide characters
    screen.feed(drawing)
    pyte.ByteStream(plain).feed(drawing)
    assert len(screen_module._shared_cells) <= 16
    assert screen.rows() == [row.rstrip() for row in plain.display]
    assert screen._screen.buffer[7][0] == plain.buffer[7][0]  # the same character and attributes


def test_an_erase_pyte_does_not_know_is_ignored() -> None:
    screen = ScreenModel(rows=2, cols=10)
    screen.feed(b"kept\x1b[7Jon")  # pyte raised on it
    assert screen.rows() == ["kepton", ""]


def test_a_look_at_the_largest_screen_lets_other_work_run_while_it_reads() -> None:
    async def scenario() -> int:
        buffer = OutputBuffer(1024)
        screen = LazyScreen(buffer)
        screen.resize(10_000, 10_000)  # held the loop for 45 s before sides were bounded
        turns = 0

        async def other_work() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        running = asyncio.ensure_future(other_work())
        snapshot = await screen.snapshot()
        running.cancel()
        assert snapshot.size == {"rows": MAX_TERMINAL_SIDE, "cols": MAX_TERMINAL_SIDE}
        return turns

    slices = MAX_TERMINAL_SIDE // (CELLS_READ_AT_ONCE // MAX_TERMINAL_SIDE)
    assert asyncio.run(scenario()) >= slices  # its rows were read a slice at a time
