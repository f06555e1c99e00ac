"""Plain text that scrolls off unseen is left out of a screen's replay, and the screen is the same."""

import asyncio
import random
import re

import pytest

from wardian_core.parsing.screen import ScreenModel
from wardian_core.parsing.scrolled_off import PLAIN_STRETCH, SMALLEST_STRETCH_BYTES, kept_lines, scrolled_off
from wardian_host.output import screen as lazy_screen_module
from wardian_host.output.buffer import OutputBuffer
from wardian_host.output.screen import REPLAY_LIMIT_BYTES, LazyScreen


def _plain_text(chance: random.Random, size: int) -> bytes:
    """Lines of every length, bare line feeds, carriage returns that overwrite, long unbroken runs."""
    parts: list[bytes] = []
    while sum(map(len, parts)) < size:
        pick = chance.random()
        if pick < 0.3:
            parts.append(bytes(chance.choice(b"abcxyz 0123") for _ in range(chance.randint(0, 400))))
        elif pick < 0.6:
            parts.append(b"\r\n")
        elif pick < 0.7:
            parts.append(b"\n")
        elif pick < 0.8:
            parts.append(b"\r")
        else:
            parts.append(bytes([chance.choice(b"xyz")]) * chance.randint(1000, 9000))
    return b"".join(parts)


def _fed_skipping(model: ScreenModel, data: bytes) -> int:
    """`data` fed as a look replays it; the bytes it drew."""
    drawn, position = 0, 0
    for stretch in PLAIN_STRETCH.finditer(data):
        model.feed(data[position : stretch.start()])
        assert model.plain_text_scrolls()
        text = scrolled_off(stretch.group(), *model.size)
        model.feed(text)
        drawn += stretch.start() - position + len(text)
        position = stretch.end()
    model.feed(data[position:])
    return drawn + len(data) - position


@pytest.mark.parametrize("seed", range(40))
def test_what_is_left_out_changes_no_row_and_not_the_cursor(seed: int) -> None:
    chance = random.Random(seed)
    rows, cols = chance.randint(2, 50), chance.randint(2, 160)
    # Whatever the screen held and wherever its cursor was, a pending wrap at the last column too.
    before = b"\x1b[%d;%dH" % (chance.randint(1, rows), chance.randint(1, cols)) + b"old text " * chance.randint(0, 60)
    screens = kept_lines(rows) * cols  # the least a stretch keeps
    data = _plain_text(chance, chance.randint(SMALLEST_STRETCH_BYTES, 60_000) + 3 * screens)
    whole, skipping = ScreenModel(rows, cols), ScreenModel(rows, cols)
    whole.feed(before + data)
    skipping.feed(before)
    _fed_skipping(skipping, data)
    assert skipping.snapshot() == whole.snapshot()


@pytest.mark.parametrize(
    "state",
    [
        b"\x1b[?7l",  # lines that do not wrap: a long line keeps its first characters
        b"\x1b[4h",  # insert mode: characters push the row's rest along
        b"\x1b[3;10r",  # a scroll region: rows outside it never scroll away
        b"\x1b]0;a title being set ",  # inside a sequence: its bytes are not text
    ],
)
def test_text_is_not_left_out_where_it_would_not_draw_as_plain_text(state: bytes) -> None:
    model = ScreenModel(10, 40)
    model.feed(b"first\r\n" + state)
    assert not model.plain_text_scrolls()


@pytest.mark.parametrize("state", [b"\x1b[?7l", b"\x1b[3;10r", b"\x1b]0;a title being set "])
def test_where_text_is_kept_whole_leaving_it_out_would_change_the_screen(state: bytes) -> None:
    lines = b"".join(b"line %d of the flood\r\n" % n for n in range(2000))
    data = lines + b"".join(b"%07d" % n for n in range(2000)) + b"\x07"  # a long line of changing digits
    whole, skipping = ScreenModel(10, 40), ScreenModel(10, 40)
    whole.feed(b"first\r\n" + state + data)
    skipping.feed(b"first\r\n" + state + scrolled_off(data, 10, 40))
    assert skipping.snapshot() != whole.snapshot()


def test_a_look_at_a_flooding_agent_draws_a_few_screens_not_the_whole_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []

    class Counted(ScreenModel):
        def feed(self, data: bytes) -> None:
            drawn.append(len(data))
            super().feed(data)

    monkeypatch.setattr(lazy_screen_module, "ScreenModel", Counted)
    buffer = OutputBuffer(4 * REPLAY_LIMIT_BYTES)
    screen = LazyScreen(buffer)
    buffer.append(b"\x1b[31mprompt$ \x1b[0mcat big.log\r\n")
    for flood in (b"x" * (3 * REPLAY_LIMIT_BYTES), b"".join(b"log line %06d\r\n" % n for n in range(20_000))):
        buffer.append(flood)
        snapshot = asyncio.run(screen.snapshot())
        expected = ScreenModel(*snapshot.size.values())
        expected.feed(buffer.read_from(max(buffer.start_cursor, buffer.end_cursor - REPLAY_LIMIT_BYTES)) or b"")
        assert snapshot == expected.snapshot()
        rows, cols = snapshot.size["rows"], snapshot.size["cols"]
        assert sum(drawn) <= 3 * rows * cols  # a 64 KiB replay, drawn in about two screens' worth
        drawn.clear()


@pytest.mark.parametrize("seed", range(20))
def test_stretches_are_the_longest_runs_of_plain_text_wherever_they_begin(seed: int) -> None:
    # The search starts only where plain text begins (a run just short of the smallest was read
    # again from each of its bytes: 4.5 s for 1 MiB of 4,000-column rows). What it finds is
    # every maximal run of plain text at least SMALLEST_STRETCH_BYTES long, at the data's start too.
    chance = random.Random(seed)
    pieces = [_plain_text(chance, chance.randint(0, 3 * SMALLEST_STRETCH_BYTES)) for _ in range(8)]
    escapes = [b"\x1b[%dH" % chance.randint(1, 40), b"\t", b"\x1b[0m", b"\x00"]
    data = b"".join(piece + chance.choice(escapes) for piece in pieces)
    runs = [(run.start(), run.end()) for run in re.finditer(rb"[\x20-\x7e\r\n]+", data)]

    found = [(stretch.start(), stretch.end()) for stretch in PLAIN_STRETCH.finditer(data)]

    assert found == [run for run in runs if run[1] - run[0] >= SMALLEST_STRETCH_BYTES]
