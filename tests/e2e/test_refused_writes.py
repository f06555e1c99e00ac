"""A home the file system refuses to write (read-only, full): `write_failed` with a hint that
says what to do, never `app_not_running` or a bare `request_failed` (issue 30, item 14)."""

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from full_disk import FLAG_VARIABLE, SITE

from wardian_core.control.client import ControlClient
from wardian_core.errors import WardianError
from wardian_host.daemon.log_throttle import LINES_PER_PEER

WARDIAN = str(Path(sys.executable).parent / "wardian")
UNSHARE = shutil.which("unshare") or "unshare"


def _namespaces_work() -> bool:
    if shutil.which(UNSHARE) is None:
        return False
    return subprocess.run([UNSHARE, "-rm", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _namespaces_work(), reason="needs `unshare -rm` (a private mount namespace)")
def test_host_start_on_a_read_only_home_is_write_failed(wardian_home: Path) -> None:
    home = shlex.quote(str(wardian_home))
    script = f"mount -o bind,ro {home} {home} && exec {shlex.quote(WARDIAN)} host start"
    completed = subprocess.run([UNSHARE, "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 1 and completed.stdout == "", completed.stderr
    assert "Traceback" not in completed.stderr
    error = json.loads(completed.stderr)["error"]
    assert (error["code"], error["details"]["errno"]) == ("write_failed", "EROFS")
    assert error["hint"].startswith(f"Make {wardian_home} writable")
    assert list(wardian_home.iterdir()) == []


@pytest.fixture
def full_after_first(spawn: Callable[..., dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host with agent `first`, whose state.db writes then fail as on a full disk until the
    returned flag file is removed."""
    full = tmp_path / "disk-is-full"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(SITE), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv(FLAG_VARIABLE, str(full))
    spawn("first", "sleep", "600")
    full.touch()
    return full


@pytest.mark.parametrize(
    "command",
    [
        ("agent", "spawn", "--provider", "generic", "--class", "Coder", "--name", "second", "--", "sleep", "600"),
        ("agent", "update", "first", "--model", "other"),
        ("agent", "rename", "first", "renamed"),
    ],
)
def test_a_change_on_a_full_disk_is_write_failed_and_changes_nothing(
    full_after_first: Path, run_wardian: Callable[..., Any], command: tuple[str, ...]
) -> None:
    result = run_wardian(*command)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    error = result.error()
    assert (error["code"], error["details"]["errno"]) == ("write_failed", "ENOSPC")
    assert error["details"]["path"].endswith("state.db") and error["hint"].startswith("Free some space")
    full_after_first.unlink()
    listed = run_wardian("agent", "list", "--fields", "name,launch_config")
    assert [(agent["name"], agent["launch_config"]["model"]) for agent in listed.json()["agents"]] == [("first", None)]


def test_a_client_repeating_a_refused_write_logs_a_few_lines(full_after_first: Path, wardian_home: Path) -> None:
    with ControlClient.connect(wardian_home) as client:  # one peer: this test's process
        for attempt in range(20):
            with pytest.raises(WardianError) as refused:
                client.request("agent.rename", {"target": "first", "new_name": f"renamed-{attempt}"})
            assert refused.value.code == "write_failed"
    logged = (wardian_home / "logs" / "host.log").read_text()
    assert logged.count("request agent.rename: cannot write") == LINES_PER_PEER
