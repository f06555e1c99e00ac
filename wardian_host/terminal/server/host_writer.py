"""What the terminal server writes to its host: busy agents' output gathered into few writes.

Each read of a PTY became a frame, a socket write and a wake-up of the host; with fifty agents
printing a little at a time that was a thousand wake-ups a second, and waking (not parsing)
was most of the host's CPU (benchmarks/host.py (e)). So output that comes within `window`
seconds of the last write waits for the window's end, and goes out then in one write with
everything else due, each terminal's pieces joined into one frame. Output after a quiet
window goes out at the end of the loop turn that read it: a keystroke's echo waits for
nothing. Every other frame (a launch's answer, an exit) goes out at once, behind the output
gathered before it, so the host reads a terminal's output before its exit.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from wardian_core import terminal_wire as wire

# How long output may wait for more to go with it: well under what a person notices in an
# echo, and a fifth of what a busy agent's parse waits anyway (the host's parse window).
WINDOW_SECONDS = 0.002
# Gathered output past this goes out at once: a flood gains nothing from waiting.
FLUSH_BYTES = 64 * 1024


@dataclass
class _Output:
    offset: int
    pieces: list[bytes] = field(default_factory=list)
    size: int = 0


class HostWriter:
    """Frames for one host's connection, in order; `on_written` runs after each write (the
    server's check of how much the host has yet to read)."""

    def __init__(
        self, writer: asyncio.StreamWriter, on_written: Callable[[], None], window: float = WINDOW_SECONDS
    ) -> None:
        self._writer = writer
        self._on_written = on_written
        self._window = window
        self._loop = asyncio.get_running_loop()
        self._gathered: dict[str, _Output] = {}  # by terminal key; only output waits
        self._gathered_bytes = 0
        self._due: asyncio.Handle | None = None
        self._written_at = float("-inf")

    def output(self, key: str, offset: int, data: bytes) -> None:
        """`data`, read from terminal `key` at `offset`, to go out within the window."""
        gathered = self._gathered.get(key)
        if self._gathered_bytes + len(data) > FLUSH_BYTES or (
            gathered is not None and gathered.offset + gathered.size != offset  # never joined out of order
        ):
            self.flush()  # one write stays within a read batch and the gathered bytes
            gathered = None
        if gathered is None:
            gathered = self._gathered[key] = _Output(offset)
        gathered.pieces.append(data)
        gathered.size += len(data)
        self._gathered_bytes += len(data)
        if self._gathered_bytes >= FLUSH_BYTES:
            self.flush()
        elif self._due is None:
            due = self._written_at + self._window
            if due <= self._loop.time():
                self._due = self._loop.call_soon(self.flush)
            else:
                self._due = self._loop.call_at(due, self.flush)

    def frame(self, frame: wire.Frame, payload: bytes = b"") -> None:
        """Any frame, at once, after the output gathered so far."""
        self._write([*self._gathered_frames(), wire.encode(frame, payload)])

    def flush(self) -> None:
        """What is gathered, now."""
        if self._gathered:
            self._write(self._gathered_frames())

    def close(self) -> None:
        """Drop what is gathered: the host is gone (the rings keep it for the next one)."""
        self._cancel_due()
        self._gathered.clear()
        self._gathered_bytes = 0

    def _gathered_frames(self) -> list[bytes]:
        self._cancel_due()
        encoded = [
            wire.encode_output(key, gathered.offset, b"".join(gathered.pieces))
            for key, gathered in self._gathered.items()
        ]
        self._gathered.clear()
        self._gathered_bytes = 0
        return encoded

    def _cancel_due(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None

    def _write(self, encoded: list[bytes]) -> None:
        if self._writer.is_closing():
            return
        self._writer.write(b"".join(encoded))
        self._written_at = self._loop.time()
        self._on_written()
