"""Both POSIX terminal backends, through the real `wardian` command: each runs agents with
its own means, and the host says which one is in use."""

import json
import os
from pathlib import Path

import psutil
import pytest

from wardian_host.daemon import caller_identity

BACKENDS = ("linux", "ptyprocess")


def _pidfds(pid: int) -> int:
    """How many pidfds process `pid` holds (Linux names them anon_inode:[pidfd])."""
    folder = Path(f"/proc/{pid}/fd")
    return sum(1 for fd in folder.iterdir() if os.readlink(fd) == "anon_inode:[pidfd]")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_forced_backend_runs_agents_as_session_leaders_on_their_pty_and_is_reported(
    backend: str, spawn, wait_status, show, run_wardian
) -> None:
    forced = {"WARDIAN_PTY_BACKEND": backend}
    started = run_wardian("host", "start", env=forced)
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["host"]["pty_backend"] == backend
    spawn("leader", "bash", "--norc", "--noprofile")
    wait_status("leader", "idle")
    agent = show("leader", "pid")
    process = psutil.Process(agent["pid"])
    assert process.cmdline()[0].endswith("bash")  # the trampoline exec'd the agent in its own pid
    # Its controlling terminal is the PTY it reads. Not psutil's terminal(): that maps the device
    # through a listing of /dev/pts made once per process, and this worker may have listed it
    # before this PTY existed (a pts number new since then has no path: None).
    pty = os.stat(f"/proc/{agent['pid']}/fd/0").st_rdev
    assert os.getsid(agent["pid"]) == agent["pid"] and caller_identity._terminal(agent["pid"]) == pty
    host = run_wardian("host", "status").json()["host"]
    assert host["pty_backend"] == backend == host["terminal_server"]["pty_backend"]
    # The Linux backend holds a pidfd per agent (in the terminal server, which owns the PTYs);
    # the portable one never opens one.
    assert (_pidfds(host["terminal_server"]["pid"]) > 0) == (backend == "linux")
    killed = run_wardian("agent", "kill", "leader")
    assert killed.returncode == 0, killed.stderr
    assert not psutil.pid_exists(agent["pid"]) or process.status() == psutil.STATUS_ZOMBIE


def test_an_agent_ending_on_its_own_is_seen_by_the_portable_backend_with_its_exit_code(
    spawn, run_wardian, show
) -> None:
    run_wardian("host", "start", env={"WARDIAN_PTY_BACKEND": "ptyprocess"})
    spawn("brief", "bash", "-c", "echo about to fail; exit 5")
    waited = run_wardian("agent", "wait", "brief", "--until", "error", "--timeout", "20s")
    assert waited.returncode == 0, waited.stderr
    assert show("brief", "status,status_evidence")["status_evidence"]["exit_code"] == 5


@pytest.mark.parametrize(
    ("value", "code"), [("kqueue", "usage"), ("LINUX", "usage")], ids=["unknown backend", "wrong case"]
)
def test_a_backend_that_does_not_exist_fails_the_host_start_with_an_envelope(
    value: str, code: str, run_wardian, wardian_home: Path
) -> None:
    result = run_wardian("host", "start", env={"WARDIAN_PTY_BACKEND": value})
    error = result.error()
    assert (result.returncode, error["code"]) == (1, code)
    assert "WARDIAN_PTY_BACKEND" in error["message"] and "linux, ptyprocess" in error["hint"]
    assert run_wardian("host", "status").error()["code"] == "app_not_running"
