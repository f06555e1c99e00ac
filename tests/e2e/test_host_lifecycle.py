"""The host and the agent lifecycle, through the real `wardian` command and real PTYs."""

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

from wardian_core.control.protocol import PROTOCOL_VERSION

WARDIAN = str(Path(sys.executable).parent / "wardian")


def test_spawn_returns_promptly_with_piped_output_while_starting_the_host(
    generic_spawn_args, workspace: Path, wait_status
) -> None:
    started = time.monotonic()
    done = subprocess.run(
        [WARDIAN, *generic_spawn_args("first", "--", "bash", "--norc", "--noprofile")],
        capture_output=True,
        text=True,
        timeout=30,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 25
    agent = json.loads(done.stdout)["agent"]
    assert agent["name"] == "first" and agent["status"] == "starting" and agent["workspace"] == str(workspace)
    idle = wait_status("first", "idle")
    assert idle["status"] == "idle"


def test_live_reads_say_live_and_carry_evidence(spawn, wait_status, show, run_wardian) -> None:
    spawn("live", "bash", "--norc")
    wait_status("live", "idle")
    agent = show("live")
    assert agent["status_source"] == "live"
    assert agent["status_evidence"]["source"] == "pty" and agent["status_evidence"]["event"] == "ready"
    assert psutil.Process(agent["pid"]).cmdline()[0].endswith("bash")
    status = run_wardian("host", "status").json()["host"]
    assert status["agents"] == 1 and status["running"] == 1 and status["protocol"] == PROTOCOL_VERSION


def test_agent_environment_has_session_id_home_term_and_wardian_first_on_path(
    spawn, wait_status, workspace: Path, wardian_home: Path
) -> None:
    agent = spawn("env", "bash", "-c", "env > env.txt; echo written; exec sleep 300")
    wait_status("env", "idle")
    env = dict(line.split("=", 1) for line in (workspace / "env.txt").read_text().splitlines() if "=" in line)
    assert env["WARDIAN_SESSION_ID"] == agent["uuid"]
    assert env["WARDIAN_HOME"] == str(wardian_home)
    assert env["TERM"] == "xterm-256color"
    assert env["PATH"].split(os.pathsep)[0] == str(wardian_home / "bin")
    launcher = wardian_home / "bin" / "wardian"
    assert os.access(launcher, os.X_OK)
    version = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=30)
    assert version.stdout.startswith("wardian, version")


def test_kill_ends_the_whole_tree_including_a_setsid_double_forked_grandchild(
    spawn, wait_status, show, run_wardian, workspace: Path
) -> None:
    script = "( setsid sleep 600 & echo $! > grandchild.pid ) ; sleep 600 & echo $! > child.pid; echo started; wait"
    spawn("tree", "bash", "-c", script)
    wait_status("tree", "idle")
    root = show("tree")["pid"]
    grandchild = int((workspace / "grandchild.pid").read_text())
    child = int((workspace / "child.pid").read_text())
    assert psutil.Process(grandchild).ppid() != root  # it really left the tree
    assert os.getsid(grandchild) != os.getsid(root)  # and the session
    result = run_wardian("agent", "kill", "tree")
    assert result.returncode == 0, result.stderr
    assert result.json()["agent"]["status"] == "off"
    for pid in (root, child, grandchild):
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    agent = show("tree")
    assert agent["status"] == "off" and agent["status_evidence"]["rule"] == "kill" and agent["pid"] is None


def test_unexpected_nonzero_exit_is_error_with_exit_code_and_output_tail(spawn, run_wardian, show) -> None:
    spawn("crash", "bash", "-c", "echo about to fail; sleep 0.2; exit 3")
    result = run_wardian("agent", "wait", "crash", "--until", "error", "--timeout", "20s")
    assert result.returncode == 0, result.stderr
    evidence = show("crash")["status_evidence"]
    assert evidence["exit_code"] == 3 and "about to fail" in evidence["output_tail"]


def test_clean_exit_is_off(spawn, run_wardian, show) -> None:
    spawn("brief", "bash", "-c", "echo bye")
    result = run_wardian("agent", "wait", "brief", "--until", "off", "--timeout", "20s")
    assert result.returncode == 0, result.stderr
    assert show("brief")["status_evidence"]["rule"] == "clean exit"


def test_pause_then_resume_relaunches_the_agent(spawn, wait_status, show, run_wardian) -> None:
    spawn("pausable", "bash", "--norc")
    wait_status("pausable", "idle")
    first_pid = show("pausable")["pid"]
    paused = run_wardian("agent", "pause", "pausable")
    assert paused.returncode == 0 and paused.json()["agent"]["status"] == "off"
    assert show("pausable")["status_evidence"]["rule"] == "pause"
    resumed = run_wardian("agent", "resume", "pausable")
    assert resumed.returncode == 0, resumed.stderr
    wait_status("pausable", "idle")
    second_pid = show("pausable")["pid"]
    assert second_pid != first_pid and psutil.pid_exists(second_pid)
    again = run_wardian("agent", "resume", "pausable")
    assert again.returncode == 1 and again.error()["code"] == "request_failed"


def test_clone_copies_provider_class_workspace_and_names_copies(spawn, wait_status, run_wardian, workspace) -> None:
    spawn("orig", "bash", "--norc", cls="Reviewer")
    first = run_wardian("agent", "clone", "orig")
    second = run_wardian("agent", "clone", "orig")
    named = run_wardian("agent", "clone", "orig", "--name", "twin")
    assert [r.json()["agent"]["name"] for r in (first, second, named)] == ["orig-copy", "orig-copy-2", "twin"]
    copy = first.json()["agent"]
    assert (copy["class"], copy["provider"], copy["workspace"]) == ("Reviewer", "generic", str(workspace))
    wait_status("orig-copy", "idle")


def test_rename_keeps_uuid_and_refuses_taken_or_bad_names(spawn, run_wardian) -> None:
    agent = spawn("before", "bash", "--norc")
    spawn("other", "bash", "--norc")
    renamed = run_wardian("agent", "rename", "before", "after")
    assert renamed.returncode == 0 and renamed.json()["agent"]["uuid"] == agent["uuid"]
    assert run_wardian("agent", "after", "--field", "uuid").stdout.strip() == agent["uuid"]
    taken = run_wardian("agent", "rename", "after", "other")
    assert taken.returncode == 1 and taken.error()["code"] == "duplicate_name"
    bad = run_wardian("agent", "rename", "after", "no spaces")
    assert bad.returncode == 1 and bad.error()["code"] == "invalid_name"


def test_delete_needs_exact_confirmation_and_force_for_a_running_agent(
    spawn, run_wardian, wardian_home: Path, workspace: Path
) -> None:
    agent = spawn("doomed", "bash", "--norc")
    assert (wardian_home / "agents" / agent["uuid"]).is_dir()
    wrong = run_wardian("agent", "delete", "doomed", "--confirm", "Doomed")
    assert wrong.returncode == 1 and wrong.error()["code"] == "usage"
    running = run_wardian("agent", "delete", "doomed", "--confirm", "doomed")
    assert running.returncode == 1 and running.error()["code"] == "request_failed"
    forced = run_wardian("agent", "delete", "doomed", "--confirm", "doomed", "--force")
    assert forced.returncode == 0, forced.stderr
    answer = forced.json()
    # The record every other command answers with, not the row state.db held (is_off: 1, JSON text).
    assert answer == {"schema": 1, "agent": agent | {"status": "off"}, "deleted": True}
    assert not (wardian_home / "agents" / agent["uuid"]).exists()
    assert workspace.is_dir()
    assert run_wardian("agent", "doomed").returncode == 2


def test_spawn_errors_leave_nothing_behind(run_wardian, spawn, workspace: Path, tmp_path: Path) -> None:
    spawn("keeper", "bash", "--norc")

    def spawn_args(*extra: str) -> list[str]:
        return ["agent", "spawn", "--class", "Coder", *extra]

    cases = [
        (spawn_args("--provider", "nope", "--workspace", str(workspace)), "not_found", 2),
        (
            spawn_args("--provider", "generic", "--name", "keeper", "--workspace", str(workspace), "--", "bash"),
            "duplicate_name",
            1,
        ),
        (spawn_args("--provider", "generic", "--name", "bad name", "--workspace", str(workspace)), "invalid_name", 1),
        (spawn_args("--provider", "generic", "--workspace", str(tmp_path / "missing"), "--", "bash"), "usage", 1),
        (
            spawn_args(
                "--provider", "generic", "--name", "ghost", "--workspace", str(workspace), "--", "/no/such/binary"
            ),
            "request_failed",
            1,
        ),
        (["agent", "spawn", "--class", "Coder"], "usage", 1),
    ]
    for args, code, exit_code in cases:
        result = run_wardian(*args)
        assert (result.returncode, result.error()["code"]) == (exit_code, code), args
    names = run_wardian("agent", "list", "--field", "name").stdout.split()
    assert names == ["keeper"]


def test_live_commands_without_a_host_are_app_not_running(run_wardian, seed_agent) -> None:
    seed_agent(name="sleeper")
    for args in (("agent", "kill", "sleeper"), ("host", "status"), ("agent", "wait", "sleeper", "--until", "idle")):
        result = run_wardian(*args)
        assert result.returncode == 6, args
        error = result.error()
        assert error["code"] == "app_not_running" and "wardian host start" in error["hint"]
    assert run_wardian("agent", "sleeper").json()["agent"]["name"] == "sleeper"  # reads still work


def test_unknown_target_is_not_found(spawn, run_wardian) -> None:
    spawn("present", "bash", "--norc")
    for verb in ("kill", "pause", "resume", "clone"):
        result = run_wardian("agent", verb, "absent")
        assert result.returncode == 2, verb
        assert result.error()["code"] == "not_found"


HELD_EXIT_SITE = Path(__file__).resolve().parents[1] / "support" / "held_exit_site"


def test_host_stop_says_stopped_only_once_the_process_is_gone(run_wardian, tmp_path: Path) -> None:
    fifo = tmp_path / "hold-exit"
    os.mkfifo(fifo)
    held = {"PYTHONPATH": str(HELD_EXIT_SITE), "WARDIAN_TEST_HOLD_EXIT": str(fifo)}
    started = run_wardian("host", "start", env=held)
    assert started.returncode == 0, started.stderr
    pid = started.json()["host"]["pid"]
    try:
        # The host lets its lock go, then is held at exit: its process still runs.
        stopping = run_wardian("host", "stop", env={"WARDIAN_CONTROL_TIMEOUT": "5"})
        assert stopping.returncode == 0, stopping.stderr
        assert stopping.json()["host"]["stopped"] is False and psutil.pid_exists(pid)
    finally:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the held exit goes on
    with contextlib.suppress(psutil.NoSuchProcess):
        psutil.Process(pid).wait(30)
    assert run_wardian("host", "status").error()["code"] == "app_not_running"
