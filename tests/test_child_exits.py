"""The portable backend's exit watch: SIGCHLD through the loop, each watched child reaped alone."""

import asyncio
import os
import subprocess
import sys

from wardian_host.terminal.child_exits import watcher_for


def _child(code: int) -> subprocess.Popen[bytes]:
    """A child that exits with `code` once `_release` closes its stdin."""
    script = f"import sys; sys.stdin.read(); sys.exit({code})"
    return subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE)


def _release(child: subprocess.Popen[bytes]) -> None:
    assert child.stdin is not None
    child.stdin.close()


async def _exited(child: subprocess.Popen[bytes]) -> None:
    """Until `child` has exited, left unreaped (a zombie) for whoever reaps it."""
    await asyncio.to_thread(os.waitid, os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)


class ExitsSeen:
    """The exit codes the watcher reported, each child's once, and a way to await them."""

    def __init__(self) -> None:
        self.codes: dict[int, int | None] = {}
        self._changed = asyncio.Event()

    def watch(self, child: subprocess.Popen[bytes]) -> None:
        watcher_for(asyncio.get_running_loop()).watch(child.pid, child.poll, lambda: self._seen(child))

    def _seen(self, child: subprocess.Popen[bytes]) -> None:
        assert child.pid not in self.codes, "on_exit called twice"
        self.codes[child.pid] = child.returncode
        self._changed.set()

    async def until(self, count: int) -> dict[int, int | None]:
        async def enough() -> None:
            while len(self.codes) < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(enough(), 30)
        return self.codes


def test_every_watched_child_is_heard_once_with_its_exit_code() -> None:
    async def scenario() -> tuple[list[int], dict[int, int | None]]:
        children = [_child(3), _child(0), _child(9)]
        seen = ExitsSeen()
        for child in children:
            seen.watch(child)
        _release(children[0])
        _release(children[1])
        await seen.until(2)  # one signal or two for these; the last exits on its own later
        _release(children[2])
        return [child.pid for child in children], await seen.until(3)

    pids, codes = asyncio.run(scenario())
    assert codes == {pids[0]: 3, pids[1]: 0, pids[2]: 9}


def test_a_child_that_exited_before_it_was_watched_is_heard() -> None:
    async def scenario() -> tuple[int, dict[int, int | None]]:
        child = _child(4)
        _release(child)
        await _exited(child)  # its SIGCHLD came and went before anyone watched
        seen = ExitsSeen()
        seen.watch(child)
        return child.pid, await seen.until(1)

    pid, codes = asyncio.run(scenario())
    assert codes == {pid: 4}


def test_a_child_nobody_watches_is_left_for_its_owner_to_reap() -> None:
    async def scenario() -> int:
        watched, stranger = _child(0), _child(7)
        seen = ExitsSeen()
        seen.watch(watched)
        _release(stranger)
        await _exited(stranger)  # its SIGCHLD reached the watcher, which listens since watch()
        _release(watched)
        await seen.until(1)
        return await asyncio.to_thread(stranger.wait)

    assert asyncio.run(scenario()) == 7  # reaped by anyone else, its owner would read ECHILD as 0


def test_one_loop_has_one_watcher() -> None:
    async def twice() -> bool:
        loop = asyncio.get_running_loop()
        return watcher_for(loop) is watcher_for(loop)

    assert asyncio.run(twice())
