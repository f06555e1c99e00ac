"""The screen model: rows as a person sees them, replayed lazily from the output buffer."""

import asyncio

from wardian_core.parsing.screen import ScreenModel
from wardian_host.output.buffer import OutputBuffer
from wardian_host.output.screen import REPLAY_LIMIT_BYTES, LazyScreen


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
