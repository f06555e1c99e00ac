"""A child process on a pseudo-terminal, in its own session, for a threaded asyncio host.

What both POSIX backends share; `linux.py` and `portable.py` differ only in how the
child becomes a session leader and how its exit is learned.

No Python runs between fork and exec (the host has threads: forking them in Python, as
`pty.fork` and the ptyprocess package do, may deadlock the child on a lock another thread
held): the child is started by subprocess's C fork/exec, through a prefix that makes it
the leader of a new session with the PTY as its controlling terminal (job control,
Ctrl-C and /dev/tty work). The trampoline prefix is a fresh Python interpreter doing those
two calls after exec, then exec'ing the agent: the same pid, on every POSIX system.
"""

import contextlib
import errno
import fcntl
import os
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

from wardian_core.errors import WardianError

TRAMPOLINE = [
    sys.executable,
    "-I",
    "-S",
    "-c",
    "import fcntl,os,sys,termios;os.setsid();fcntl.ioctl(0,termios.TIOCSCTTY,0);os.execvp(sys.argv[1],sys.argv[1:])",
]


def set_window_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def resolve_executable(command: str, env: dict[str, str], cwd: Path) -> str:
    found = shutil.which(command, path=env.get("PATH")) if os.sep not in command else None
    candidate = found or (str(cwd / command) if os.sep in command else None)
    if candidate and os.access(candidate, os.X_OK) and os.path.isfile(candidate):
        return candidate
    raise WardianError(
        "request_failed",
        f"cannot run {command!r}: not found or not executable",
        "Install it or put it on PATH.",  # the agent's launch adds the provider's own ways out
        {"executable": command},
    )


def start_on_pty(
    session_leader_prefix: list[str], argv: list[str], env: dict[str, str], cwd: Path, rows: int, cols: int
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` on a new PTY through `session_leader_prefix`; returns it and the master, non-blocking."""
    executable = resolve_executable(argv[0], env, cwd)
    master, slave = os.openpty()  # both close-on-exec; the child gets the slave as 0, 1, 2
    try:
        set_window_size(slave, rows, cols)
        process = subprocess.Popen(
            [*session_leader_prefix, executable, *argv[1:]],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            close_fds=True,
        )
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    os.set_blocking(master, False)
    return process, master


class PosixTerminal:
    """The PTY side of a terminal; each backend's subclass adds how its exit is learned
    (`watch_exit`, `unwatch_exit` of the `Terminal` interface)."""

    def __init__(self, process: subprocess.Popen[bytes], master_fd: int) -> None:
        self._process = process
        self.pid = process.pid
        self.session_id = process.pid  # the prefix makes the child the leader of a new session
        self._master = master_fd

    def fileno(self) -> int:
        return self._master

    def read_available(self) -> bytes | None:
        try:
            return os.read(self._master, 65536)
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno == errno.EIO:  # every slave descriptor is closed
                return b""
            raise

    def write_some(self, data: bytes) -> int:
        try:
            return os.write(self._master, data)
        except BlockingIOError:
            return 0

    def resize(self, rows: int, cols: int) -> None:
        set_window_size(self._master, rows, cols)

    def signal_group(self, signal_number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal_number)

    def reap(self) -> int | None:
        return self._process.poll()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._master)
