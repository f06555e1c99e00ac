"""For tests of the file and folder followers: lines awaited as they arrive, under either backend."""

import asyncio

import pytest

from wardian_core.pty_backend import BACKEND_VARIABLE, BACKENDS, linux_means_missing

TIMEOUT = 10


class Lines:
    """What a follower handed on, and a way to await the n-th one."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self._changed = asyncio.Event()

    def __call__(self, line: bytes) -> None:
        self.received.append(line)
        self._changed.set()

    async def wait_for(self, count: int) -> list[bytes]:
        async def enough() -> None:
            while len(self.received) < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(enough(), TIMEOUT)
        return self.received


@pytest.fixture(params=BACKENDS, name="backend")
def forced_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each backend in turn, forced: `linux` follows with inotify, `ptyprocess` polls as macOS does."""
    if request.param == "linux" and (missing := linux_means_missing()):
        pytest.skip(f"the Linux backend cannot run here: {missing}")
    monkeypatch.setenv(BACKEND_VARIABLE, request.param)
    return str(request.param)
