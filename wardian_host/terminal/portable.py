"""The portable POSIX backend (macOS, the BSDs; forced on Linux by WARDIAN_PTY_BACKEND=ptyprocess).

Nothing Linux-only: the session is made by the Python trampoline (TIOCSCTTY, which BSDs
need and Linux accepts) and the exit is learned from SIGCHLD (`child_exits`).
"""

import asyncio
from collections.abc import Callable
from pathlib import Path

from wardian_host.terminal.child_exits import watcher_for
from wardian_host.terminal.posix import TRAMPOLINE, PosixTerminal, start_on_pty


class PortableTerminal(PosixTerminal):
    @classmethod
    def spawn(cls, argv: list[str], env: dict[str, str], cwd: Path, rows: int, cols: int) -> "PortableTerminal":
        return cls(*start_on_pty(TRAMPOLINE, argv, env, cwd, rows, cols))

    def watch_exit(self, loop: asyncio.AbstractEventLoop, on_exit: Callable[[], None]) -> None:
        watcher_for(loop).watch(self.pid, self.reap, on_exit)

    def unwatch_exit(self, loop: asyncio.AbstractEventLoop) -> None:
        watcher_for(loop).unwatch(self.pid)
