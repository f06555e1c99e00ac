"""The portable backend's exit watch: SIGCHLD through the loop, each watched child reaped alone."""

import asyncio
import os
import subprocess
import sys

from wardian_host.terminal.child_exits import watcher_for


def _child(code: int, after: str = "") -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", f"import sys; {after or 'pass'}; sys.exit({code})"])


async def _exit_codes_seen(children: list[subprocess.Popen[bytes]], watched_late: bool = False) -> dict[int, int]:
    loop = asyncio.get_running_loop()
    seen: dict[int, int] = {}
    all_seen = asyncio.Event()

    def on_exit(child: subprocess.Popen[bytes]) -> None:
        assert child.pid not in seen, "on_exit called twice"
        seen[child.pid] = child.returncode
        if len(seen) == len(children):
            all_seen.set()

    if watched_late:  # each has exited (and sent its SIGCHLD) before it is watched
        for child in children:
            await asyncio.to_thread(_wait_without_reaping, child.pid)
    for child in children:
        watcher_for(loop).watch(child.pid, child.poll, lambda child=child: on_exit(child))
    await asyncio.wait_for(all_seen.wait(), 30)
    return seen


def _wait_without_reaping(pid: int) -> None:
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


def test_every_watched_child_is_heard_once_with_its_exit_code() -> None:
    children = [_child(3), _child(0), _child(9, "import time; time.sleep(0.2)")]
    seen = asyncio.run(_exit_codes_seen(children))
    assert seen == {children[0].pid: 3, children[1].pid: 0, children[2].pid: 9}


def test_a_child_that_exited_before_it_was_watched_is_heard() -> None:
    children = [_child(4)]
    assert asyncio.run(_exit_codes_seen(children, watched_late=True)) == {children[0].pid: 4}


def test_a_child_nobody_watches_is_left_for_its_owner_to_reap() -> None:
    async def scenario() -> int:
        stranger = _child(7)
        watched = [_child(0, "import time; time.sleep(0.3)")]
        await _exit_codes_seen(watched)  # the stranger's SIGCHLD came while the watcher listened
        return await asyncio.to_thread(stranger.wait)

    assert asyncio.run(scenario()) == 7  # reaped by anyone else, its owner would read ECHILD as 0


def test_one_loop_has_one_watcher() -> None:
    async def twice() -> bool:
        loop = asyncio.get_running_loop()
        return watcher_for(loop) is watcher_for(loop)

    assert asyncio.run(twice())
