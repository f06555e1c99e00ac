"""A child process on a pseudo-terminal, in its own session, for a threaded asyncio host.

No Python runs between fork and exec (the host has threads): the child is started by
subprocess's C fork/exec, through util-linux `setsid --ctty`, which makes it a session
leader with the PTY as its controlling terminal (job control, Ctrl-C, /dev/tty work).
Where `setsid` is missing, a fresh Python interpreter does the same two calls after exec.
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

_TRAMPOLINE = (
    "import fcntl,os,sys,termios;os.setsid();fcntl.ioctl(0,termios.TIOCSCTTY,0);os.execvp(sys.argv[1],sys.argv[1:])"
)


def _session_leader_prefix() -> list[str]:
    setsid = shutil.which("setsid")
    if setsid:
        return [setsid, "--ctty"]
    return [sys.executable, "-I", "-S", "-c", _TRAMPOLINE]


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


class PosixTerminal:
    def __init__(self, process: subprocess.Popen[bytes], master_fd: int) -> None:
        self._process = process
        self.pid = process.pid
        self.session_id = process.pid  # `setsid` makes the child the leader of a new session
        self._master = master_fd
        self._pidfd = os.pidfd_open(process.pid)

    @classmethod
    def spawn(cls, argv: list[str], env: dict[str, str], cwd: Path, rows: int, cols: int) -> "PosixTerminal":
        executable = resolve_executable(argv[0], env, cwd)
        master, slave = os.openpty()  # both close-on-exec; the child gets the slave as 0, 1, 2
        try:
            set_window_size(slave, rows, cols)
            process = subprocess.Popen(
                [*_session_leader_prefix(), executable, *argv[1:]],
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
        return cls(process, master)

    def fileno(self) -> int:
        return self._master

    def exit_fileno(self) -> int:
        return self._pidfd

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
        for fd in (self._master, self._pidfd):
            with contextlib.suppress(OSError):
                os.close(fd)
