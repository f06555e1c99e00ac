"""A terminal another server started and handed over: its PTY master is ours, its child is not.

The child stays the child of the server that started it (after that one exits, of init), so
this server cannot reap it and never learns its exit code: the exit is reported with code
None. The exit is learned through a pidfd where the OS has one (Linux, either backend: a
pidfd works for any process), else by checking every EXIT_CHECK_SECONDS that the pid is
still there (no SIGCHLD comes for another's child).
"""

import asyncio
import contextlib
import os
from collections.abc import Callable

from wardian_host.terminal.posix import PosixTerminal

EXIT_CHECK_SECONDS = 1.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a pid reused by another user's process: ours is gone
        return False
    return True


class HandedTerminal(PosixTerminal):
    # Not PosixTerminal's constructor: there is no Popen of this child here.
    def __init__(self, master_fd: int, pid: int, session_id: int) -> None:
        self.pid = pid
        self.session_id = session_id
        self._master = master_fd
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):  # gone already: the first check finds it
            self._pidfd = os.pidfd_open(pid)
        self._check: asyncio.Handle | None = None

    def watch_exit(self, loop: asyncio.AbstractEventLoop, on_exit: Callable[[], None]) -> None:
        if self._pidfd is not None:
            loop.add_reader(self._pidfd, on_exit)
            return

        def check() -> None:
            if _alive(self.pid):
                self._check = loop.call_later(EXIT_CHECK_SECONDS, check)
            else:
                on_exit()

        self._check = loop.call_soon(check)

    def unwatch_exit(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._pidfd is not None:
            loop.remove_reader(self._pidfd)
        if self._check is not None:
            self._check.cancel()

    def reap(self) -> int | None:
        return None  # another process's child: its exit code went to its parent

    def close(self) -> None:
        super().close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
