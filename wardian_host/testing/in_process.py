"""A host run inside the test's own process, as uvicorn's tests run its server: a failure's
traceback then names the host's function that broke, not a `wardian` subprocess.

`InProcessHost(home)` builds the real `Host` (the parts `Host.__init__` wires, the control
socket served) on a loop of its own and holds the home's host lock, so a `wardian` an agent
runs talks to this host and none other starts. The loop runs only inside `call`: each call
runs one coroutine while the host serves (PTY output, exits, the control socket) and returns
its result or raises its error. `close` stops the host the way `wardian host stop` does (a
test may close it early; closing again does nothing).
"""

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

from wardian_core import paths
from wardian_host.daemon.host import Host
from wardian_host.daemon.host_lock import HostLock
from wardian_host.providers.manager import Plugins
from wardian_host.testing.reaping import reap_home

T = TypeVar("T")


class InProcessHost:
    def __init__(self, home: Path, plugins: Plugins | None = None) -> None:
        paths.ensure_home(home)
        self._lock = HostLock(home)
        self._lock.acquire()
        self._runner = asyncio.Runner()
        self._closed = False
        try:
            self.host = self._runner.run(self._started(home, plugins))
        except BaseException:
            self._release()
            raise

    @staticmethod
    async def _started(home: Path, plugins: Plugins | None) -> Host:
        host = Host(home, plugins=plugins)  # built in the loop that runs it, as the host process does
        await host.start()
        return host

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the host's loop, the host serving meanwhile."""
        return self._runner.run(coroutine)

    def close(self) -> None:
        """Stop every agent and workflow run, close the socket and state.db, release the home."""
        if self._closed:
            return
        self._closed = True
        try:
            self._runner.run(self.host.shutdown())
        finally:
            self._release()

    def _release(self) -> None:
        self._runner.close()  # cancels what the host left pending: its readers and timers
        self._lock.release()


@contextlib.contextmanager
def serving(home: Path, plugins: Plugins | None = None) -> Iterator[InProcessHost]:
    """A test's host of `home`, run in this process: at the end stopped with its agents, as
    `wardian host stop` stops one, and whatever outlived it reaped."""
    host = InProcessHost(home, plugins=plugins)
    try:
        yield host
    finally:
        try:
            host.close()
        finally:
            reap_home(home)
