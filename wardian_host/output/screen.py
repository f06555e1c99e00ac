"""An agent's screen, replayed from its output buffer only when someone asks for it.

Feeding a terminal emulator on every read would cost the PTY read rate; the buffer
already keeps the bytes, so the screen remembers how far it has read and catches up
on demand. The emulator is pure Python (about 1 MB/s), so a catch-up replays at most
`REPLAY_LIMIT_BYTES`: a screen further behind (or whose bytes the bounded buffer
dropped) starts over from a blank terminal there, and the next full redraw of a TUI
repairs what that left out. Plain text that would scroll off before the screen is read
(a flood of log lines, one endless line) is left out of the replay (`scrolled_off`): a
look at a flooding agent draws about two screens, not 64 KiB. It runs on the loop in
slices of `SLICE_BYTES`, letting every other reader and client in between: a worker
thread would fight the loop for the GIL and, measured, halve the PTY read rate of a
flooding agent while it ran. The work of a byte grows with the screen's rows (a line feed
at the bottom moves every row), so a taller screen is fed in smaller slices, and its rows
are read in slices too.
"""

import asyncio
from dataclasses import dataclass, field

from wardian_core.parsing import DEFAULT_ROWS
from wardian_core.parsing.screen import ScreenModel, ScreenSnapshot
from wardian_core.parsing.scrolled_off import PLAIN_STRETCH, scrolled_off
from wardian_host.output.buffer import OutputBuffer

# A TUI's visible screen is a few KiB of drawing; 64 KiB covers it and costs ~60 ms of CPU.
REPLAY_LIMIT_BYTES = 64 * 1024
# A look that paints the screen for a person's terminal (an attach) catches up further: a
# TUI's frame may lie a long turn of spinner frames back (OpenCode: about 2 KB a second).
# Once per typing attach, in slices like any look (benchmarks/screen_look.py: its CPU).
PAINT_REPLAY_LIMIT_BYTES = 1024 * 1024
SLICE_BYTES = 1024  # about 1.2 ms of emulation at the default size
SMALLEST_SLICE_BYTES = 64
CELLS_READ_AT_ONCE = 8 * 1024  # a screen's rows are read this many cells at a time, ~2.5 ms
# Resizes waiting for the next look; a client resizing in a loop must not grow this.
PENDING_RESIZES_KEPT = 32


@dataclass
class _CatchUp:
    """What one look replays: output in order, with the resizes made between its bytes."""

    model: ScreenModel
    steps: list[bytes | tuple[int, int]] = field(default_factory=list)

    async def run(self) -> None:
        for step in self.steps:
            if isinstance(step, tuple):
                self.model.resize(*step)
            else:
                await self._replay(step)

    async def _replay(self, data: bytes) -> None:
        """`data` fed, less the plain text that would scroll off unseen (`scrolled_off`)."""
        position = 0
        for stretch in PLAIN_STRETCH.finditer(data):
            await self._feed(data[position : stretch.start()])
            text = stretch.group()
            if self.model.plain_text_scrolls():  # known only once what came before is fed
                text = scrolled_off(text, *self.model.size)
            await self._feed(text)
            position = stretch.end()
        await self._feed(data[position:])

    async def _feed(self, data: bytes) -> None:
        slice_bytes = _slice_bytes(self.model)
        for start in range(0, len(data), slice_bytes):
            self.model.feed(data[start : start + slice_bytes])
            await asyncio.sleep(0)


def _slice_bytes(model: ScreenModel) -> int:
    return max(SMALLEST_SLICE_BYTES, SLICE_BYTES * DEFAULT_ROWS // model.size[0])


def _rows_at_once(model: ScreenModel) -> int:
    """How many of the model's rows make about CELLS_READ_AT_ONCE cells: one slice of a read."""
    return max(1, CELLS_READ_AT_ONCE // model.size[1])


async def _read_rows(model: ScreenModel) -> list[str]:
    """The model's rows, a slice at a time with the loop's other work in between."""
    at_once = _rows_at_once(model)
    rows: list[str] = []
    for first in range(0, model.size[0], at_once):
        rows += model.rows(first, first + at_once)
        await asyncio.sleep(0)
    return rows


async def _paint(model: ScreenModel) -> bytes:
    """The bytes that draw the model's screen, a slice of rows at a time, as `_read_rows`."""
    parts: list[str] = []
    for part in model.painting(_rows_at_once(model)):
        parts.append(part)
        await asyncio.sleep(0)
    return "".join(parts).encode()


class LazyScreen:
    def __init__(self, buffer: OutputBuffer) -> None:
        self._buffer = buffer
        # Made at the first look: an agent nobody looks at (most idle ones) holds no emulator,
        # ~10 KB each (pyte's screen and its parser's dispatch tables).
        self._model: ScreenModel | None = None
        self._cursor = buffer.end_cursor
        self._resizes: list[tuple[int, int, int]] = []  # (output cursor, rows, cols)
        self._looking = asyncio.Lock()

    def restart(self) -> None:
        """A new process draws on a blank terminal of the default size."""
        self._model = None
        self._cursor = self._buffer.end_cursor
        self._resizes.clear()

    def resize(self, rows: int, cols: int) -> None:
        """The terminal changed size now: output from here on is drawn at the new size."""
        self._resizes = [*self._resizes[-(PENDING_RESIZES_KEPT - 1) :], (self._buffer.end_cursor, rows, cols)]

    async def snapshot(self) -> ScreenSnapshot:
        async with self._looking:
            catch_up = self._plan()
            await catch_up.run()
            return catch_up.model.snapshot(await _read_rows(catch_up.model))

    async def painted(self) -> tuple[bytes, int] | None:
        """For a full-screen program: the bytes that draw its screen and the output cursor they
        stand for, caught up from as far back as PAINT_REPLAY_LIMIT_BYTES (a TUI draws its frame
        once, then its changes: the last 64 KiB may hold no frame). None on the main screen,
        whose recent output is a terminal's scrollback."""
        async with self._looking:
            catch_up = self._plan(PAINT_REPLAY_LIMIT_BYTES)
            cursor = self._cursor  # a restart meanwhile moves it to the next process's output
            await catch_up.run()
            if not catch_up.model.on_alternate_screen():
                return None
            return await _paint(catch_up.model), cursor

    def _plan(self, limit: int = REPLAY_LIMIT_BYTES) -> _CatchUp:
        """Take the unread bytes and pending resizes at once: output arriving meanwhile is the next
        look's. More than `limit` behind, start over from a blank there."""
        end = self._buffer.end_cursor
        start = self._cursor
        if self._model is None:
            self._model = ScreenModel()
        if start < self._buffer.start_cursor or end - start > limit:
            start = max(self._buffer.start_cursor, end - limit)
            self._model = ScreenModel(*self._model.size)
        data = self._buffer.read_from(start) or b""
        catch_up = _CatchUp(self._model)
        position = start
        for at, rows, cols in self._resizes:
            if at > position:
                catch_up.steps.append(data[position - start : at - start])
                position = at
            catch_up.steps.append((rows, cols))
        catch_up.steps.append(data[position - start :])
        self._resizes.clear()
        self._cursor = end
        return catch_up
