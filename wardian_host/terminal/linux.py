"""The Linux backend: the exit learned through a pidfd, the session made by util-linux `setsid`.

A pidfd becomes readable when the process exits and names that process alone (no pid
reuse, no SIGCHLD shared with the rest of the host). `setsid --ctty` saves starting a
Python interpreter per agent; where util-linux is missing the trampoline does the same.
"""

import asyncio
import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from wardian_host.terminal.posix import TRAMPOLINE, PosixTerminal, start_on_pty


def _session_leader_prefix() -> list[str]:
    setsid = shutil.which("setsid")
    return [setsid, "--ctty"] if setsid else TRAMPOLINE


class LinuxTerminal(PosixTerminal):
    def __init__(self, process: subprocess.Popen[bytes], master_fd: int) -> None:
        super().__init__(process, master_fd)
        self._pidfd = os.pidfd_open(process.pid)

    @classmethod
    def spawn(cls, argv: list[str], env: dict[str, str], cwd: Path, rows: int, cols: int) -> "LinuxTerminal":
        return cls(*start_on_pty(_session_leader_prefix(), argv, env, cwd, rows, cols))

    def watch_exit(self, loop: asyncio.AbstractEventLoop, on_exit: Callable[[], None]) -> None:
        loop.add_reader(self._pidfd, on_exit)

    def unwatch_exit(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.remove_reader(self._pidfd)

    def close(self) -> None:
        super().close()
        with contextlib.suppress(OSError):
            os.close(self._pidfd)
