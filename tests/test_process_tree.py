"""Ending an agent's processes: rounds until none is left, and survivors reported."""

import subprocess
import time
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


def _until_forking(children: Path) -> None:
    """The forker is under way (on a loaded machine bash may not have forked once yet)."""
    deadline = time.monotonic() + 20
    while not (children.is_file() and len(children.read_text().split()) >= 2):
        assert time.monotonic() < deadline, "the forker never forked"
        time.sleep(0.01)


def test_end_processes_ends_children_forked_after_each_look_and_reports_none(tmp_path: Path) -> None:
    script = "trap '' TERM; while :; do sleep 600 & echo $! >> children; sleep 0.01; done"
    forker = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, start_new_session=True)
    root = psutil.Process(forker.pid)
    try:
        _until_forking(tmp_path / "children")
        assert process_tree.end_processes(lambda: _tree(root), grace_seconds=0.3) == []
        forker.wait(timeout=10)
        children = [int(line) for line in (tmp_path / "children").read_text().split()]
        assert len(children) > 3
        assert [pid for pid in children if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"] == []
    finally:
        forker.kill()


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
