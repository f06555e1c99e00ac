"""An agent's processes, through the real `wardian` and real PTYs: what a kill ends, what a
recovering host adopts, and that the state follows them even on a full disk."""

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import psutil
import pytest
from full_disk import FLAG_VARIABLE, SITE


def _gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def _stored(home: Path, name: str) -> dict[str, Any]:
    reader = sqlite3.connect(home / "state.db")
    reader.row_factory = sqlite3.Row
    try:
        row = dict(reader.execute("SELECT uuid, status, pid FROM agents WHERE name = ?", (name,)).fetchone())
        moves = reader.execute("SELECT payload FROM events WHERE agent = ? AND kind = 'status'", (row["uuid"],))
        return row | {"moves": [json.loads(payload) for (payload,) in moves]}
    finally:
        reader.close()


def test_a_kill_on_a_full_disk_ends_the_agent_and_state_db_catches_up_when_space_returns(
    spawn, wait_status, show, run_wardian, wardian_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = tmp_path / "disk-is-full"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(SITE), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv(FLAG_VARIABLE, str(full))
    spawn("worker", "bash", "-c", "echo up; exec sleep 600")
    wait_status("worker", "idle")
    pid = show("worker")["pid"]
    full.touch()
    killed = run_wardian("agent", "kill", "worker")
    assert killed.returncode == 0, killed.stderr
    assert killed.json()["agent"]["status"] == "off" and _gone(pid)
    live = show("worker")
    assert (live["status"], live["pid"], live["status_source"]) == ("off", None, "live")
    assert _stored(wardian_home, "worker")["status"] == "idle", "the disk really was full"
    full.unlink()
    assert run_wardian("host", "stop").returncode == 0
    stored = _stored(wardian_home, "worker")
    assert (stored["status"], stored["pid"]) == ("off", None)
    assert (stored["moves"][-1]["from"], stored["moves"][-1]["to"]) == ("idle", "off")
