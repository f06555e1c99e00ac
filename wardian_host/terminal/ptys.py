"""The PTYs of one process, driven by its event loop: started, read, written, resized, reaped.

Everything runs on the event loop through readiness callbacks: output through
`add_reader` on the PTY, input through a queue drained by `add_writer` (a long paste
into a busy child never blocks the loop), exit through the backend's exit watch (a pidfd
on Linux, SIGCHLD elsewhere; EOF on the PTY is not exit: a grandchild may still hold it open).

The terminal server owns its agents' PTYs through this table (`wardian_host.terminal_server`);
the host's `TerminalSupervisor` can hold one in its own process too (`LocalPtys`).
"""

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wardian_core.parsing import terminal_side
from wardian_core.pty_backend import Backend
from wardian_host.terminal import Terminal, spawn_terminal

log = logging.getLogger(__name__)

READ_BATCH_BYTES = 256 * 1024
WRITE_CHUNK_BYTES = 64 * 1024

OutputHandler = Callable[[bytes], None]
ExitCodeHandler = Callable[[int | None], None]


@dataclass(eq=False)
class Pty:
    """One launch's PTY; a relaunch makes a new one, so late callbacks of the old are ignored."""

    key: str
    terminal: Terminal
    on_output: OutputHandler
    on_exit: ExitCodeHandler
    rows: int
    cols: int
    pending_input: bytearray = field(default_factory=bytearray)
    reading: bool = True


class PtyTable:
    def __init__(self, loop: asyncio.AbstractEventLoop, backend: Backend, read_batch: int = READ_BATCH_BYTES) -> None:
        self._loop = loop
        self.backend = backend
        self._read_batch = read_batch
        self._ptys: dict[str, Pty] = {}
        self._paused = False

    def open(
        self,
        key: str,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int],
        on_output: OutputHandler,
        on_exit: ExitCodeHandler,
    ) -> Terminal:
        """Start `argv` on a new PTY of `size` (rows, cols) under `key`."""
        terminal = spawn_terminal(argv, env, cwd, self.backend, *size)
        self.adopt(key, terminal, size, on_output, on_exit)
        return terminal

    def adopt(
        self, key: str, terminal: Terminal, size: tuple[int, int], on_output: OutputHandler, on_exit: ExitCodeHandler
    ) -> None:
        """Read, write and watch `terminal` (one just started, or one another server handed over)."""
        rows, cols = size
        pty = Pty(key, terminal, on_output, on_exit, rows, cols)
        self._ptys[key] = pty
        if not self._paused:
            self._loop.add_reader(terminal.fileno(), self._read, pty)
        terminal.watch_exit(self._loop, functools.partial(self._exited, pty))

    def release_all(self) -> None:
        """Stop reading, writing and watching every PTY, closing none (another server took them)."""
        for pty in self._ptys.values():
            self._loop.remove_reader(pty.terminal.fileno())
            self._loop.remove_writer(pty.terminal.fileno())
            pty.terminal.unwatch_exit(self._loop)
        self._ptys.clear()

    def get(self, key: str) -> Pty | None:
        return self._ptys.get(key)

    def all(self) -> list[Pty]:
        return list(self._ptys.values())

    def _current(self, pty: Pty) -> bool:
        return self._ptys.get(pty.key) is pty

    def _read(self, pty: Pty) -> None:
        if not self._current(pty):
            return
        terminal = pty.terminal
        # Drain what is there (up to a bound) so a flood costs one handler call per batch,
        # not one per 4 KiB read, and other agents still get their turn on the loop.
        batch = bytearray()
        while len(batch) < self._read_batch:
            data = terminal.read_available()
            if data is None:
                break
            if not data:  # every slave end closed; the exit comes through the exit watch
                self._stop_reading(pty)
                break
            batch += data
        if batch:
            pty.on_output(bytes(batch))

    def _stop_reading(self, pty: Pty) -> None:
        pty.reading = False
        self._loop.remove_reader(pty.terminal.fileno())

    def pause_reading(self) -> None:
        """Read no PTY until `resume_reading`: the agents block on a full PTY, nothing grows here."""
        self._paused = True
        for pty in self._ptys.values():
            if pty.reading:
                self._loop.remove_reader(pty.terminal.fileno())

    def resume_reading(self) -> None:
        self._paused = False
        for pty in self._ptys.values():
            if pty.reading:
                self._loop.add_reader(pty.terminal.fileno(), self._read, pty)

    def _exited(self, pty: Pty) -> None:
        if not self._current(pty):
            return
        terminal = pty.terminal
        terminal.unwatch_exit(self._loop)
        while tail := terminal.read_available():  # what the child wrote just before it died
            pty.on_output(tail)
        self._loop.remove_reader(terminal.fileno())
        self._loop.remove_writer(terminal.fileno())
        exit_code = terminal.reap()
        terminal.close()
        del self._ptys[pty.key]
        pty.on_exit(exit_code)

    def write(self, key: str, data: bytes) -> None:
        pty = self._ptys.get(key)
        if pty is None:
            raise RuntimeError(f"agent {key} has no terminal")
        pty.pending_input += data
        self._flush(pty)

    def _flush(self, pty: Pty) -> None:
        if not self._current(pty):
            return
        terminal = pty.terminal
        written = terminal.write_some(bytes(pty.pending_input[:WRITE_CHUNK_BYTES]))
        del pty.pending_input[:written]
        if pty.pending_input:
            self._loop.add_writer(terminal.fileno(), self._flush, pty)
        else:
            self._loop.remove_writer(terminal.fileno())

    def resize(self, key: str, rows: int, cols: int) -> None:
        pty = self._ptys.get(key)
        if pty is not None:
            pty.rows, pty.cols = terminal_side(rows), terminal_side(cols)
            pty.terminal.resize(pty.rows, pty.cols)

    def signal_group(self, key: str, signal_number: int) -> None:
        pty = self._ptys.get(key)
        if pty is not None:
            pty.terminal.signal_group(signal_number)
