"""A screen look on the largest terminal an agent may have, beside one at the default size.

    .venv/bin/python benchmarks/screen_look.py

For each size and each drawing (a full screen of text, a flood of line feeds scrolling
it, a flood of full-screen erases, a blank screen) one look (`agent screen`) catches up
on the last 64 KiB of output. Printed: the look's CPU time, and the most CPU time the loop
spent in it without running anything else (target <= 50 ms at 1000 × 1000: a look must not
hold the host's other requests; a 10000 × 10000 resize once held it for 45 s). CPU time, not
wall time, so other processes on the machine do not count as the look's.

The last row of each size is a typing attach's first screen: a full-screen TUI's frame and
PAINT_REPLAY_LIMIT_BYTES of its changes after it, caught up on and painted (the same hold
target; its CPU is what one person's attach to an agent that far behind costs the host). At
1000 × 1000 its frame's rows of plain text held the loop 1.3 s in the search for text that
scrolls off, before that search began only where plain text does.
"""

import asyncio
import time
from collections.abc import Callable
from typing import Any

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS, MAX_TERMINAL_SIDE
from wardian_host.output.buffer import OutputBuffer
from wardian_host.output.screen import PAINT_REPLAY_LIMIT_BYTES, REPLAY_LIMIT_BYTES, LazyScreen

TARGET_STALL_MS = 50.0


def full_text(rows: int, cols: int) -> bytes:
    return (b"x" * cols + b"\r\n") * rows


def line_feeds(rows: int, _cols: int) -> bytes:
    return b"\x1b[%dH" % rows + b"y\n" * (REPLAY_LIMIT_BYTES // 2)


def erases(rows: int, cols: int) -> bytes:
    return full_text(rows, cols)[: REPLAY_LIMIT_BYTES // 2] + b"\x1b[2J" * (REPLAY_LIMIT_BYTES // 8)


def blank(_rows: int, _cols: int) -> bytes:
    return b""


DRAWINGS: dict[str, Callable[[int, int], bytes]] = {
    "full text": full_text,
    "line feeds": line_feeds,
    "erases": erases,
    "blank": blank,
}


async def longest_stall(work: "asyncio.Future[Any]") -> float:
    """The most CPU time between two turns of this ticker while `work` runs."""
    longest, before = 0.0, time.thread_time()
    while not work.done():
        await asyncio.sleep(0)
        now = time.thread_time()
        longest, before = max(longest, now - before), now
    return longest


async def one_look(rows: int, cols: int, drawing: bytes) -> tuple[float, float]:
    buffer = OutputBuffer(4 * REPLAY_LIMIT_BYTES)
    screen = LazyScreen(buffer)
    screen.resize(rows, cols)
    buffer.append(drawing[-REPLAY_LIMIT_BYTES:])
    started = time.process_time()
    look = asyncio.ensure_future(screen.snapshot())
    stall = await longest_stall(look)
    await look
    return time.process_time() - started, stall


def tui_turn(rows: int, cols: int) -> bytes:
    """A full-screen TUI's frame, then a long turn of spinner changes (OpenCode's way: its
    footer drawn once, then about 2 KB a second): PAINT_REPLAY_LIMIT_BYTES in all."""
    frame = b"\x1b[?1049h\x1b[2J" + b"".join(b"\x1b[%d;1H" % row + b"=" * cols for row in range(1, rows + 1))
    tick = b"\x1b[16;14H\x1b[38;5;8m \xc2\xb7 12345.6s\x1b[0m"
    return frame + tick * ((PAINT_REPLAY_LIMIT_BYTES - len(frame)) // len(tick))


async def one_paint(rows: int, cols: int) -> tuple[float, float]:
    """A typing attach's first screen: the model caught up on the whole turn, then painted."""
    drawing = tui_turn(rows, cols)
    buffer = OutputBuffer(2 * len(drawing))
    screen = LazyScreen(buffer)
    screen.resize(rows, cols)
    buffer.append(drawing)
    started = time.process_time()
    paint = asyncio.ensure_future(screen.painted())
    stall = await longest_stall(paint)
    assert await paint is not None
    return time.process_time() - started, stall


def report(rows: int, cols: int, name: str, cpu: float, stall: float) -> None:
    verdict = "ok" if stall * 1000 <= TARGET_STALL_MS else "OVER TARGET"
    print(f"{rows:>5} × {cols:<4} {name:<11} {cpu * 1000:>6.0f} ms {stall * 1000:>8.1f} ms  {verdict}")


async def main() -> None:
    print(f"{'size':>11}  {'drawing':<11} {'look CPU':>9} {'longest hold':>14}")
    for rows, cols in ((DEFAULT_ROWS, DEFAULT_COLS), (MAX_TERMINAL_SIDE, MAX_TERMINAL_SIDE)):
        for name, draw in DRAWINGS.items():
            report(rows, cols, name, *await one_look(rows, cols, draw(rows, cols)))
        report(rows, cols, "attach paint", *await one_paint(rows, cols))


if __name__ == "__main__":
    asyncio.run(main())
