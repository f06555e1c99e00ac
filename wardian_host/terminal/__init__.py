"""The one small interface between the supervisor and an OS pseudo-terminal.

POSIX uses `posix.PosixTerminal`; a Windows ConPTY (pywinpty) implementation slots
in behind the same methods.
"""

import sys
from pathlib import Path
from typing import Protocol

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS


class Terminal(Protocol):
    pid: int
    session_id: int  # the session the child leads (its own, new one)

    def fileno(self) -> int:
        """The descriptor to watch for output (the PTY master)."""

    def exit_fileno(self) -> int:
        """A descriptor that becomes readable when the process exits (a pidfd)."""

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
    argv: list[str], env: dict[str, str], cwd: Path, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS
) -> Terminal:
    if sys.platform == "win32":
        raise NotImplementedError("Windows ConPTY support is not implemented yet")
    from wardian_host.terminal.posix import PosixTerminal

    return PosixTerminal.spawn(argv, env, cwd, rows, cols)
