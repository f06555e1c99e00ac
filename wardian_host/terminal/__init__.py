"""The one small interface between the supervisor and an OS pseudo-terminal.

POSIX has two backends behind it (`wardian_core.pty_backend` chooses): `linux.LinuxTerminal`
and `portable.PortableTerminal`, sharing `posix.PosixTerminal`. A Windows ConPTY (pywinpty)
implementation slots in behind the same methods; until then `windows.py` holds what is
known of that path and spawning there is `not_supported` (docs/platforms.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS
from wardian_core.pty_backend import Backend, check_host_platform

if TYPE_CHECKING:  # not at run time: the terminal server's entry runs first (see its __main__)
    import asyncio


class Terminal(Protocol):
    pid: int
    session_id: int  # the session the child leads (its own, new one)

    def fileno(self) -> int:
        """The descriptor to watch for output (the PTY master)."""

    def watch_exit(self, loop: asyncio.AbstractEventLoop, on_exit: Callable[[], None]) -> None:
        """Have `on_exit` called on `loop` once the process has exited (EOF on the PTY is not exit)."""

    def unwatch_exit(self, loop: asyncio.AbstractEventLoop) -> None: ...

    def read_available(self) -> bytes | None:
        """What can be read now: None when nothing is waiting, b"" at end of output."""

    def write_some(self, data: bytes) -> int:
        """Write what the PTY accepts now; returns the count written (0 when full)."""

    def resize(self, rows: int, cols: int) -> None: ...

    def signal_group(self, signal_number: int) -> None: ...

    def reap(self) -> int | None:
        """The exit code once the process has exited (negative: killed by that signal)."""

    def close(self) -> None: ...


def spawn_terminal(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    backend: Backend,
    rows: int = DEFAULT_ROWS,
    cols: int = DEFAULT_COLS,
) -> Terminal:
    check_host_platform()
    if backend == "linux":
        from wardian_host.terminal.linux import LinuxTerminal

        return LinuxTerminal.spawn(argv, env, cwd, rows, cols)
    from wardian_host.terminal.portable import PortableTerminal

    return PortableTerminal.spawn(argv, env, cwd, rows, cols)
