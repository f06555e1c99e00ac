import hashlib
import sqlite3
from pathlib import Path

import pytest

from wardian_core import identity
from wardian_core.clock import iso_days_ago
from wardian_core.db import agents as agent_rows
from wardian_core.db import events as event_rows
from wardian_core.db import open_reader, open_writer
from wardian_core.db.empty_file import take_notice
from wardian_core.db.migrations import CURRENT_VERSION
from wardian_core.errors import WardianError


def test_new_database_is_wal_at_current_schema(wardian_home: Path) -> None:
    conn = open_writer(wardian_home)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"events_by_agent", "events_by_time", "agents_by_workspace"} <= indexes


def test_database_from_a_newer_schema_is_refused_and_left_untouched(wardian_home: Path) -> None:
    db = wardian_home / "state.db"
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE future (x)")
    raw.execute(f"PRAGMA user_version = {CURRENT_VERSION + 5}")
    raw.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for opener in (open_writer, open_reader):
        with pytest.raises(WardianError) as caught:
            opener(wardian_home)
        assert caught.value.code == "db_unavailable"
        assert "newer" in caught.value.message
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (wardian_home / "state.db-wal").exists()


def test_reader_refuses_a_missing_database_without_creating_one(wardian_home: Path) -> None:
    with pytest.raises(WardianError) as caught:
        open_reader(wardian_home)
    assert caught.value.code == "db_unavailable"
    assert not (wardian_home / "state.db").exists()


def test_garbage_file_is_reported_not_replaced(wardian_home: Path) -> None:
    db = wardian_home / "state.db"
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(WardianError) as caught:
        open_reader(wardian_home)
    assert caught.value.code == "state_corrupt"
    assert db.read_bytes() == b"this is not sqlite" * 100


@pytest.mark.parametrize("opener", [open_reader, open_writer])
def test_a_locked_database_is_reported_as_locked_not_as_permissions(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch, opener
) -> None:
    open_writer(wardian_home).close()
    holder = sqlite3.connect(wardian_home / "state.db", isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")  # what a `sqlite3` shell may leave
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr("wardian_core.db.connection.BUSY_TIMEOUT_MS", 50)
    try:
        with pytest.raises(WardianError) as caught:
            opener(wardian_home)
    finally:
        holder.close()
    error = caught.value
    assert (error.code, error.details["reason"]) == ("db_unavailable", "locked")
    assert "locked by another process" in error.message and "permissions" not in (error.hint or "")
    opener(wardian_home).close()  # nothing was harmed: once the holder is gone it opens


def test_reader_migrates_an_older_schema_forward(wardian_home: Path) -> None:
    sqlite3.connect(wardian_home / "state.db").close()  # version 0: an empty database
    conn = open_reader(wardian_home)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    assert agent_rows.list_agents(conn) == []


def _create(conn: sqlite3.Connection, name: str) -> str:
    return identity.create_agent(conn, class_name="Coder", provider="generic", workspace=None, name=name)["uuid"]


def test_status_is_written_only_when_it_changes(wardian_home: Path) -> None:
    conn = open_writer(wardian_home)
    agent = _create(conn, "a1")
    changes = [agent_rows.record_status(conn, agent, s) for s in ("idle", "idle", "processing", "idle", "idle")]
    assert changes == [True, False, True, True, False]
    events = event_rows.list_events(conn, agent)
    assert [(e["payload"]["from"], e["payload"]["to"]) for e in events] == [
        ("off", "idle"),
        ("idle", "processing"),
        ("processing", "idle"),
    ]
    stored = agent_rows.get_agent(conn, agent)
    assert stored is not None and stored["status"] == "idle" and stored["is_off"] == 0


def test_prune_keeps_newest_thousand_per_agent_and_drops_old_events(wardian_home: Path) -> None:
    conn = open_writer(wardian_home)
    busy, quiet = _create(conn, "busy"), _create(conn, "quiet")
    for index in range(1200):
        event_rows.add_event(conn, busy, "output", {"n": index})
    event_rows.add_event(conn, quiet, "old", {}, at=iso_days_ago(31))
    event_rows.add_event(conn, quiet, "recent", {}, at=iso_days_ago(29))
    assert event_rows.prune_events(conn) == 201
    kept = event_rows.list_events(conn, busy)
    assert len(kept) == 1000 and kept[0]["payload"] == {"n": 200} and kept[-1]["payload"] == {"n": 1199}
    assert [e["kind"] for e in event_rows.list_events(conn, quiet)] == ["recent"]


def test_an_empty_state_db_is_used_as_new_and_noted_once(wardian_home: Path) -> None:
    db = wardian_home / "state.db"
    db.write_bytes(b"")  # what a truncation leaves
    conn = open_writer(wardian_home)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    conn.close()
    notice = take_notice(wardian_home)
    assert notice is not None and notice.path == str(db) and "0 bytes" in notice.message
    assert take_notice(wardian_home) is None  # said once
    open_writer(wardian_home).close()  # a database now, not an empty file
    assert take_notice(wardian_home) is None


def test_a_new_state_db_leaves_no_notice(wardian_home: Path) -> None:
    open_writer(wardian_home).close()
    assert take_notice(wardian_home) is None


def test_a_reader_that_finds_an_empty_state_db_leaves_the_notice_for_the_host(wardian_home: Path) -> None:
    (wardian_home / "state.db").write_bytes(b"")
    open_reader(wardian_home).close()  # `agent list` with no host migrates it first
    assert take_notice(wardian_home) is not None
