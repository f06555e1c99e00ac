"""An agent's processes, through the real `wardian` and real PTYs: what a kill ends, what a
recovering host adopts, and that the state follows them even on a full disk."""

import json
import os
import signal
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from full_disk import FLAG_VARIABLE, SITE
from living_processes import carrying

from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_host.testing.reaping import kill_host_and_terminal_server


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


def test_a_launch_state_db_cannot_record_is_ended_and_refused_so_no_crash_orphans_it(
    spawn, wait_status, show, run_wardian, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = tmp_path / "disk-is-full"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(SITE), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv(FLAG_VARIABLE, str(full))
    agent = spawn("hz", "bash", "-c", "echo up; exec sleep 600")
    wait_status("hz", "idle")
    assert run_wardian("agent", "kill", "hz").returncode == 0
    full.write_text("process_identity")  # room for the launch's other writes, not for its process record
    resumed = run_wardian("agent", "resume", "hz")
    assert resumed.returncode == 1, resumed.stdout
    error = resumed.error()
    assert error["code"] == "write_failed" and "Free space" in error["hint"]
    assert carrying(agent["uuid"]) == []
    _kill_host(run_wardian)
    full.unlink()
    assert run_wardian("host", "start").returncode == 0
    assert (show("hz")["status"], carrying(agent["uuid"])) == ("off", [])


def test_a_kill_also_ends_children_forked_during_the_grace_period(
    generic_spawn_args, wait_status, show, run_wardian, workspace: Path
) -> None:
    # SIGTERM and SIGHUP are ignored, by the loop and (inherited) by every child it forks. Its
    # prompt makes it idle once its traps are set: no quiet time waited.
    forker = "trap '' TERM HUP; printf 'up> '; while :; do sleep 600 & echo $! >> children; sleep 0.05; done"
    prompt = ["--provider-setting", "prompt_pattern=^up> $"]
    spawned = run_wardian(*generic_spawn_args("forker", *prompt, "--", "bash", "-c", forker))
    assert spawned.returncode == 0, spawned.stderr
    agent = spawned.json()["agent"]
    wait_status("forker", "idle")
    root = show("forker")["pid"]
    killed = run_wardian("agent", "kill", "forker")
    assert killed.returncode == 0, killed.stderr
    children = [int(line) for line in (workspace / "children").read_text().split()]
    assert len(children) > 20, "children were forked during the grace period"
    assert [pid for pid in [root, *children] if not _gone(pid)] == []
    assert carrying(agent["uuid"]) == []
    assert show("forker")["status"] == "off"


def test_a_kill_ends_a_direct_child_that_left_the_session_and_the_environment(
    spawn, wait_status, run_wardian, workspace: Path
) -> None:
    # The child has no launch token and a session of its own: only its parent ties it to the
    # agent, and the hang-up ends that parent. Found after the hang-up, it was re-parented and spared.
    spawn("escaper", "bash", "-c", "setsid env -i sleep 600 & echo $! > escaped; echo up; sleep 601")
    wait_status("escaper", "idle")
    child = int((workspace / "escaped").read_text())
    assert not _gone(child)
    killed = run_wardian("agent", "kill", "escaper")
    assert killed.returncode == 0, killed.stderr
    assert _gone(child)


def test_host_stop_ends_headless_agents_too(spawn, wait_status, show, run_wardian) -> None:
    spawn("survivor", "bash", "-c", "trap '' HUP; echo up; exec sleep 600")
    wait_status("survivor", "idle")
    pid = show("survivor")["pid"]
    kill_host_and_terminal_server(Path(os.environ["WARDIAN_HOME"]))
    assert run_wardian("host", "start").returncode == 0
    assert show("survivor")["status"] == "headless"
    assert run_wardian("host", "stop").returncode == 0
    assert _gone(pid)
    assert show("survivor")["status"] == "off"


def _kill_host(run_wardian: Callable[..., Any]) -> None:
    """SIGKILL the host and its terminal server, as a crash of both would, and wait until they are gone."""
    kill_host_and_terminal_server(Path(os.environ["WARDIAN_HOME"]))


def test_an_agent_that_ended_in_error_keeps_its_exit_code_and_evidence_across_a_host_crash(
    spawn, run_wardian, show
) -> None:
    spawn("crash", "bash", "-c", "echo about to fail; exit 3")
    ended = run_wardian("agent", "wait", "crash", "--until", "error", "--timeout", "20s")
    assert ended.returncode == 0, ended.stderr
    _kill_host(run_wardian)
    assert run_wardian("host", "start").returncode == 0
    record = show("crash")
    assert (record["status"], record["status_source"]) == ("error", "live")
    evidence = record["status_evidence"]
    assert (evidence["event"], evidence["exit_code"]) == ("exit", 3) and "about to fail" in evidence["output_tail"]


def test_a_headless_agent_goes_off_when_its_process_ends(spawn, wait_status, show, run_wardian) -> None:
    spawn("survivor", "bash", "-c", "trap '' HUP; echo up; exec sleep 600")
    wait_status("survivor", "idle")
    pid = show("survivor")["pid"]
    _kill_host(run_wardian)
    assert run_wardian("host", "start").returncode == 0
    assert show("survivor")["status"] == "headless"
    os.kill(pid, signal.SIGKILL)  # not the host's child: no exit watch of the host sees this
    wait_status("survivor", "off", timeout="30s")
    ended = show("survivor")
    assert (ended["pid"], ended["status_evidence"]["event"]) == (None, "exit")
    resumed = run_wardian("agent", "resume", "survivor")
    assert resumed.returncode == 0, resumed.stderr


def test_a_read_while_no_host_runs_marks_the_running_statuses_a_gone_host_left(spawn, wait_status, run_wardian) -> None:
    spawn("left", "bash", "-c", "echo up; exec sleep 600")
    spawn("ended", "bash", "-c", "echo bye")
    wait_status("left", "idle")
    wait_status("ended", "off")
    _kill_host(run_wardian)
    fields = "name,status,status_source,host_gone"
    listed = run_wardian("agent", "list", "--fields", fields).json()
    assert listed["agents"] == [
        {"name": "left", "status": "idle", "status_source": "persisted", "host_gone": True},
        {"name": "ended", "status": "off", "status_source": "persisted", "host_gone": False},
    ]
    assert (listed["notice"]["reason"], listed["notice"]["agents"]) == ("host_gone", ["left"])
    assert "host start" in listed["notice"]["hint"]
    assert run_wardian("host", "start").returncode == 0
    live = run_wardian("agent", "list", "--fields", fields).json()
    assert "notice" not in live and [agent["host_gone"] for agent in live["agents"]] == [False, False]


@pytest.fixture
def impostor() -> Iterator[Callable[[str], psutil.Popen]]:
    """A process of this user, in a session of its own, claiming to be the agent with `uuid`."""
    started: list[psutil.Popen] = []

    def start(agent_uuid: str) -> psutil.Popen:
        env = {**os.environ, "WARDIAN_SESSION_ID": agent_uuid}
        # A program's environment shows in /proc only once its exec has finished, after Popen
        # returns; the stranger's first line says it has. Bash's own `read` then holds it, so no
        # later exec opens that window again.
        stranger = psutil.Popen(
            ["bash", "-c", "echo ready; read -r _"],
            env=env,
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(stranger)
        assert stranger.stdout is not None and stranger.stdout.readline() == "ready\n"
        return stranger

    yield start
    for process in started:
        process.kill()
        process.communicate()  # reaps it and closes its pipes


def test_a_kill_spares_a_process_that_merely_carries_the_agents_variable(
    spawn, wait_status, show, run_wardian, impostor
) -> None:
    agent = spawn("real", "bash", "-c", "( setsid sleep 600 & ) ; echo up; exec sleep 600")
    wait_status("real", "idle")
    stranger = impostor(agent["uuid"])
    assert stranger.pid in carrying(agent["uuid"]) and len(carrying(agent["uuid"])) > 2
    assert run_wardian("agent", "kill", "real").returncode == 0
    assert carrying(agent["uuid"]) == [stranger.pid], "the agent's own setsid'd grandchild is gone, not the stranger"


def test_recovery_adopts_only_the_agents_own_processes(spawn, wait_status, show, run_wardian, impostor) -> None:
    # The terminal server's death hangs up the PTYs: "gone" ends, "survivor" ignores the hang-up.
    survivor = spawn("survivor", "bash", "-c", "trap '' HUP; echo up; exec sleep 600")
    gone = spawn("gone", "bash", "-c", "echo up; exec sleep 600")
    wait_status("survivor", "idle")
    wait_status("gone", "idle")
    survivor_pid, gone_pid = show("survivor")["pid"], show("gone")["pid"]
    gone_process = psutil.Process(gone_pid)
    kill_host_and_terminal_server(Path(os.environ["WARDIAN_HOME"]))
    gone_process.wait(timeout=10)
    strangers = [impostor(survivor["uuid"]), impostor(gone["uuid"])]
    assert run_wardian("host", "start").returncode == 0
    assert (show("survivor")["status"], show("survivor")["pid"]) == ("headless", survivor_pid)
    assert (show("gone")["status"], show("gone")["pid"]) == ("off", None)
    assert run_wardian("agent", "kill", "survivor").returncode == 0
    assert _gone(survivor_pid)
    assert [stranger.is_running() for stranger in strangers] == [True, True]


def test_an_agent_an_older_wardian_launched_is_adopted_by_its_pid_and_variable(
    seed_agent, run_wardian, show, impostor, wardian_home: Path
) -> None:
    seeded = seed_agent(name="legacy", status="idle")
    own = impostor(seeded["uuid"])  # as an older host launched it: only the pid was recorded
    seed_agent(name="reused", status="idle", pid=impostor("someone-else").pid)
    conn = open_writer(wardian_home)
    agent_rows.update_columns(conn, seeded["uuid"], pid=own.pid)
    conn.close()
    assert run_wardian("host", "start").returncode == 0
    assert (show("legacy")["status"], show("legacy")["pid"]) == ("headless", own.pid)
    assert show("reused")["status"] == "off", "a pid now naming another agent's process is not this agent's"
    assert run_wardian("agent", "kill", "legacy").returncode == 0
    assert _gone(own.pid)
