"""An agent's state follows its process while state.db is full, and the file catches up."""

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from full_disk import failing

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import kept_writes, open_writer
from wardian_core.db.kept_writes import WriterConnection
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.state_catch_up import StateCatchUp
from wardian_host.agents.status_tracker import StatusTracker


class Disk:
    full = False


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    state = Disk()
    # open_writer takes the class from kept_writes when it runs (the CLI's readers never load it).
    monkeypatch.setattr(kept_writes, "WriterConnection", failing(WriterConnection, lambda: state.full))
    return state


def _stored(home: Path, agent_uuid: str) -> dict[str, Any]:
    reader = sqlite3.connect(home / "state.db")
    reader.row_factory = sqlite3.Row
    try:
        row = dict(reader.execute("SELECT status, pid FROM agents WHERE uuid = ?", (agent_uuid,)).fetchone())
        moves = reader.execute("SELECT payload FROM events WHERE agent = ? AND kind = 'status'", (agent_uuid,))
        return row | {"moves": [payload for (payload,) in moves]}
    finally:
        reader.close()


def _host_writer(home: Path) -> WriterConnection:
    """state.db opened as the host opens it, with a retrier that only counts its calls."""
    conn = open_writer(home)
    assert isinstance(conn, WriterConnection)
    conn.on_kept = lambda: None
    return conn


def _running_agent(conn: sqlite3.Connection) -> str:
    agent = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=None, name="worker")
    agent_rows.update_columns(conn, agent["uuid"], pid=4242)
    agent_rows.record_status(conn, agent["uuid"], "idle")
    return str(agent["uuid"])


def test_a_host_connection_keeps_process_writes_on_a_full_disk_and_replays_them_in_order(
    wardian_home: Path, disk: Disk
) -> None:
    conn = _host_writer(wardian_home)
    retries: list[str] = []
    conn.on_kept = lambda: retries.append("scheduled")
    agent = _running_agent(conn)
    disk.full = True
    agent_rows.update_columns(conn, agent, pid=None)
    assert agent_rows.record_status(conn, agent, "off", evidence={"rule": "kill"}) is True
    assert agent_rows.record_status(conn, agent, "off") is False, "the kept status counts as stored"
    seen = agent_rows.get_agent(conn, agent) or {}
    assert (seen["status"], seen["pid"], seen["is_off"]) == ("off", None, 1)
    assert _stored(wardian_home, agent)["status"] == "idle" and kept_writes.pending(conn) == 2
    assert retries == ["scheduled", "scheduled"]
    assert kept_writes.flush(conn) is False, "still full: nothing is lost, nothing lands"
    disk.full = False
    assert kept_writes.flush(conn) is True and kept_writes.pending(conn) == 0
    stored = _stored(wardian_home, agent)
    assert (stored["status"], stored["pid"]) == ("off", None)
    assert json.loads(stored["moves"][-1]) == {"from": "idle", "to": "off", "evidence": {"rule": "kill"}}


def test_a_later_write_lands_only_after_the_kept_ones(wardian_home: Path, disk: Disk) -> None:
    conn = _host_writer(wardian_home)
    agent = _running_agent(conn)
    disk.full = True
    agent_rows.record_status(conn, agent, "off")
    disk.full = False
    agent_rows.record_status(conn, agent, "starting")
    moves = [json.loads(move) for move in _stored(wardian_home, agent)["moves"]]
    assert [(move["from"], move["to"]) for move in moves[-2:]] == [("idle", "off"), ("off", "starting")]


def test_without_a_retrier_or_for_other_columns_a_full_disk_fails_at_once(wardian_home: Path, disk: Disk) -> None:
    conn = open_writer(wardian_home)
    agent = _running_agent(conn)
    disk.full = True
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        agent_rows.record_status(conn, agent, "off")  # a CLI's writer: nobody would retry
    assert isinstance(conn, WriterConnection)
    conn.on_kept = lambda: None
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        agent_rows.update_columns(conn, agent, name="renamed")
    assert kept_writes.pending(conn) == 0 and (agent_rows.get_agent(conn, agent) or {})["name"] == "worker"


def test_the_host_retries_kept_writes_until_they_land(
    wardian_home: Path, disk: Disk, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[bool] = []
    flush = kept_writes.flush

    async def scenario() -> None:
        landed = asyncio.Event()

        def observed_flush(conn: sqlite3.Connection) -> bool:
            attempts.append(flush(conn))
            disk.full = False  # space returns after the first failed retry
            if attempts[-1]:
                landed.set()
            return attempts[-1]

        monkeypatch.setattr(kept_writes, "flush", observed_flush)
        conn = open_writer(wardian_home)
        catch_up = StateCatchUp(conn, retry_seconds=0.01)
        agent = _running_agent(conn)
        disk.full = True
        agent_rows.record_status(conn, agent, "off")
        await asyncio.wait_for(landed.wait(), 30)
        assert attempts == [False, True]
        assert _stored(wardian_home, agent)["status"] == "off" and catch_up.flush() is True

    asyncio.run(scenario())


def test_a_status_kept_on_a_full_disk_gives_the_live_agent_its_new_time(
    wardian_home: Path, disk: Disk, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _host_writer(wardian_home)
    agent_uuid = _running_agent(conn)
    agent = AgentRegistry(conn, 1024).resolve(agent_uuid)
    tracker = StatusTracker(conn, lambda *_: None)
    disk.full = True
    monkeypatch.setattr(agent_rows, "now_iso", lambda: "2030-01-01T00:00:00.000Z")
    assert tracker.set_status(agent, "off", {"rule": "kill"}) is True
    # state.db still holds idle's time; the host's view and the status event carry the kept one.
    assert agent.row["status"] == "off" and agent.row["last_status_at"] == "2030-01-01T00:00:00.000Z"
    assert agent.event_log[-1]["at"] == "2030-01-01T00:00:00.000Z"
