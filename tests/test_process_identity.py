"""What identifies an agent's processes, and the migration that stores it without losing a row."""

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_core.db.migrations import MIGRATIONS
from wardian_core.process_identity import TOKEN_VARIABLE, ProcessIdentity
from wardian_host.terminal import process_tree


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        process.kill()
        process.wait()


def _start(started: list[subprocess.Popen[bytes]], script: str, tmp_path: Path, **env: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, env={**os.environ, **env}, start_new_session=True)
    started.append(process)
    return process


def _written_pids(path: Path) -> list[int]:
    """The pids the script wrote to `path`, once it said so through `path`.fifo."""
    with open(path.parent / (path.name + ".fifo"), encoding="utf-8") as fifo:
        fifo.readline()
    return [int(line) for line in path.read_text().split()]


def test_a_launch_identity_names_its_session_and_token_carriers_never_an_impostor(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    os.mkfifo(tmp_path / "pids.fifo")
    os.mkfifo(tmp_path / "led")
    token = "t" * 32
    # A child in the session, and a grandchild that left it (setsid) but kept the token.
    agent = _start(
        started,
        # The grandchild writes its own pid once it leads its own session; the script says so
        # once the subshell between them is gone too.
        "sleep 600 & echo $! >> pids; ( setsid sh -c 'echo $$ >> pids; echo > led; exec sleep 600' & ); "
        "read _ < led; echo 2 > pids.fifo; wait",
        tmp_path,
        **{TOKEN_VARIABLE: token, "WARDIAN_SESSION_ID": "agent-a"},
    )
    child, escaped = _written_pids(tmp_path / "pids")
    try:
        impostor = _start(started, "exec sleep 600", tmp_path, WARDIAN_SESSION_ID="agent-a")
        descendants = {process.pid for process in psutil.Process(agent.pid).children(recursive=True)}
        assert escaped not in descendants and os.getsid(escaped) == escaped, "it left the tree and the session"
        identity = process_tree.capture(agent.pid, agent.pid, token)
        found = {process.pid for process in process_tree.agent_processes(identity)}
        assert {agent.pid, child, escaped} <= found and impostor.pid not in found
        without_token = identity.model_copy(update={"token": None})
        assert escaped not in {process.pid for process in process_tree.agent_processes(without_token)}
    finally:
        for pid in (child, escaped):
            psutil.Process(pid).kill()


def test_a_reused_pid_is_not_the_agents_own_process(tmp_path: Path, started: list[subprocess.Popen[bytes]]) -> None:
    process = _start(started, "exec sleep 600", tmp_path)
    identity = process_tree.capture(process.pid, process.pid, None)
    assert process_tree.own_process(identity) is not None
    earlier = identity.model_copy(update={"started": identity.started - 3600})  # the pid named another process then
    assert process_tree.own_process(earlier) is None
    assert process_tree.agent_processes(earlier) == [], "nor is the session its reused pid leads"
    assert ProcessIdentity.from_stored(identity.stored()) == identity


def test_the_migration_to_process_identity_keeps_every_row(wardian_home: Path) -> None:
    raw = sqlite3.connect(wardian_home / "state.db")
    for step in MIGRATIONS[:3]:
        raw.executescript(step)
    raw.execute("PRAGMA user_version = 3")
    raw.execute(
        "INSERT INTO agents (uuid, name, class, provider, status, pid, is_off, created_at, launch_config)"
        " VALUES ('u-1', 'old', 'Coder', 'generic', 'idle', 4242, 0, '2026-01-01T00:00:00Z', '{}')"
    )
    raw.execute("INSERT INTO events (agent, kind, payload, timestamp) VALUES ('u-1', 'status', '{}', 'now')")
    raw.commit()
    raw.close()
    conn = open_writer(wardian_home)
    row = agent_rows.get_agent(conn, "u-1") or {}
    assert (row["name"], row["status"], row["pid"], row["process_identity"]) == ("old", "idle", 4242, None)
    assert conn.execute("SELECT count(*) FROM events WHERE agent = 'u-1'").fetchone()[0] == 1


def test_a_launch_that_ended_before_its_identity_was_taken_is_captured_as_gone() -> None:
    """The terminal server reaps a command that exits at once, before the host looks at it: the
    launch still gets its identity, and that identity names no running process."""
    ended = subprocess.Popen(["true"])
    ended.wait()

    identity = process_tree.capture(ended.pid, ended.pid, token=None)

    assert identity.pid == ended.pid
    assert process_tree.own_process(identity) is None
