"""An agent's screen, replayed from its output buffer only when someone asks for it.

Feeding a terminal emulator on every read would cost the PTY read rate; the buffer
already keeps the bytes, so the screen remembers how far it has read and catches up
on demand. Should the bounded buffer drop bytes the screen never read, the screen
starts over from the oldest kept byte (the next full redraw of a TUI repairs it).
"""

from wardian_core.parsing.screen import DEFAULT_COLS, DEFAULT_ROWS, ScreenModel, ScreenSnapshot
from wardian_host.output.buffer import OutputBuffer


class LazyScreen:
    def __init__(self, buffer: OutputBuffer) -> None:
        self._buffer = buffer
        self._model = ScreenModel()
        self._cursor = buffer.end_cursor

    def restart(self) -> None:
        """A new process draws on a blank terminal of the default size."""
        self._model = ScreenModel(DEFAULT_ROWS, DEFAULT_COLS)
        self._cursor = self._buffer.end_cursor

    def resize(self, rows: int, cols: int) -> None:
        self._catch_up()  # what was drawn before the resize was drawn at the old size
        self._model.resize(rows, cols)

    def snapshot(self) -> ScreenSnapshot:
        self._catch_up()
        return self._model.snapshot()

    def _catch_up(self) -> None:
        unread = self._buffer.read_from(self._cursor)
        if unread is None:  # dropped before it was read
            rows, cols = self._model.size
            self._model = ScreenModel(rows, cols)
            unread = self._buffer.read_from(self._buffer.start_cursor) or b""
        self._model.feed(unread)
        self._cursor = self._buffer.end_cursor
