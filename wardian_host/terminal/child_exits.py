"""Learning of child exits without a pidfd: SIGCHLD through the event loop's self-pipe.

asyncio turns a signal into a callback on the loop (`add_signal_handler` writes to its
wakeup pipe; the loop reads it and calls us), so nothing runs in signal context. SIGCHLD
says only that some child changed state, and several exits may arrive as one signal, so
each signal polls every watched child with `waitpid(pid, WNOHANG)` for that pid alone:
children started by other parts of the host (asyncio subprocesses, the host starter's
Popen) are never reaped here. One watcher per loop; the handler needs the loop to run
in the main thread, as the host's does.
"""

import asyncio
import logging
import signal
import weakref
from collections.abc import Callable

log = logging.getLogger(__name__)

Poll = Callable[[], int | None]  # reaps the child if it exited: its exit code, else None


class ChildExitWatcher:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._watched: dict[int, tuple[Poll, Callable[[], None]]] = {}
        loop.add_signal_handler(signal.SIGCHLD, self._check_all)

    def watch(self, pid: int, poll: Poll, on_exit: Callable[[], None]) -> None:
        """Call `on_exit` once, on the loop, after child `pid` exits (`poll` has reaped it)."""
        self._watched[pid] = (poll, on_exit)
        self._loop.call_soon(self._check_all)  # it may have exited before it was watched

    def unwatch(self, pid: int) -> None:
        self._watched.pop(pid, None)

    def _check_all(self) -> None:
        for pid, (poll, on_exit) in list(self._watched.items()):
            if poll() is None:
                continue
            del self._watched[pid]
            try:
                on_exit()
            except Exception:  # one failing handler must not hide the other exits of this signal
                log.exception("handling the exit of child %d failed", pid)


_watchers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ChildExitWatcher]" = weakref.WeakKeyDictionary()


def watcher_for(loop: asyncio.AbstractEventLoop) -> ChildExitWatcher:
    if loop not in _watchers:
        _watchers[loop] = ChildExitWatcher(loop)
    return _watchers[loop]
