"""Ending an agent's processes: rounds until none is left, and survivors reported."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from wardian_host.terminal import process_tree


class Unkillable(psutil.Process):
    """A process no signal reaches, as one stuck in the kernel (state D) behaves."""

    def send_signal(self, sig: int) -> None:
        pass


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def test_end_processes_ends_children_forked_after_each_look_and_reports_none(tmp_path: Path) -> None:
    # It says so once it has forked twice (on a loaded machine bash may not have forked yet).
    script = (
        "trap '' TERM; n=0; while :; do sleep 600 & echo $! >> children; n=$((n+1));"
        " [ $n -eq 2 ] && echo forking; sleep 0.01; done"
    )
    forker = subprocess.Popen(
        ["bash", "-c", script], cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    root = psutil.Process(forker.pid)
    try:
        assert forker.stdout is not None and forker.stdout.readline() == "forking\n"
        assert process_tree.end_processes(lambda: _tree(root), grace_seconds=0.3) == []
        forker.wait(timeout=10)
        children = [int(line) for line in (tmp_path / "children").read_text().split()]
        assert len(children) > 3
        assert [pid for pid in children if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"] == []
    finally:
        forker.kill()


# Starts a child, says its pid, and never reaps it: as an orphan's reaper that is slow (or
# absent, a container's pid 1), its ended child stays a zombie.
NEGLECTFUL_PARENT = (
    "import subprocess, time; child = subprocess.Popen(['sleep', '600']); print(child.pid, flush=True); time.sleep(600)"
)


def test_a_process_ended_but_not_yet_reaped_is_not_waited_for() -> None:
    parent = subprocess.Popen([sys.executable, "-c", NEGLECTFUL_PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = psutil.Process(int(parent.stdout.readline()))
        # A grace period no test outlasts: only a wait that counts the zombie as ended returns.
        ending = threading.Thread(target=process_tree.end_processes, args=(lambda: [child], 3600.0), daemon=True)
        ending.start()
        ending.join(timeout=60)  # a bound for a hang
        assert not ending.is_alive(), "the kill waited for its parent to reap a process that had ended"
        assert child.status() == psutil.STATUS_ZOMBIE
    finally:
        parent.kill()
        parent.wait()


def test_end_processes_returns_what_outlives_sigkill(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process_tree, "KILL_WAIT_SECONDS", 0.05)
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        stuck = Unkillable(sleeper.pid)
        survivors = process_tree.end_processes(lambda: [stuck], grace_seconds=0.05)
        assert [process.pid for process in survivors] == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_zombie_is_neither_an_agents_own_process_nor_one_of_its_processes() -> None:
    # A host's kill -9 leaves agents to a reaper that may never reap them (a container's pid 1):
    # the dead must not count as alive.
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        identity = process_tree.capture(child.pid, child.pid, token=None)
        assert [process.pid for process in process_tree.agent_processes(identity)] == [child.pid]
        child.kill()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # it has ended, and stays unreaped
        assert psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE
        assert process_tree.own_process(identity) is None
        assert process_tree.agent_processes(identity) == []
    finally:
        child.kill()
        child.wait()
