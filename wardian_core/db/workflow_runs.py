"""The `workflow_runs` and `workflow_events` tables. A run's state is never stored as such:
it is rebuilt from its events (`wardian_core.workflows.run_state`), each one INSERT, so a
crash leaves a log that is whole up to its last event."""

import json
import sqlite3
from typing import Any

from wardian_core.clock import now_iso
from wardian_core.db.connection import transaction
from wardian_core.workflows.run_state import rebuild

LIST_LIMIT = 100


def create_run(
    conn: sqlite3.Connection, run_id: str, workflow_id: str, definition: dict[str, Any], inputs: dict[str, str]
) -> None:
    """The run and its `run_started` event, together or not at all."""
    at = now_iso()
    with transaction(conn):
        conn.execute(
            "INSERT INTO workflow_runs (id, workflow_id, definition, inputs, created_at) VALUES (?, ?, ?, ?, ?)",
            (run_id, workflow_id, json.dumps(definition), json.dumps(inputs), at),
        )
        add_event(conn, run_id, "run_started", at=at)


def add_event(
    conn: sqlite3.Connection,
    run_id: str,
    kind: str,
    node: str | None = None,
    payload: dict[str, Any] | None = None,
    *,
    at: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO workflow_events (run_id, node, kind, payload, at) VALUES (?, ?, ?, ?, ?)",
        (run_id, node, kind, json.dumps(payload or {}, separators=(",", ":")), at or now_iso()),
    )


def events(conn: sqlite3.Connection, run_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT node, kind, payload, at FROM workflow_events WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    return [
        {"node": row["node"], "kind": row["kind"], "payload": json.loads(row["payload"]), "at": row["at"]}
        for row in rows
    ]


def get_run(conn: sqlite3.Connection, run_id: str, with_events: bool = False) -> dict[str, Any] | None:
    """The run with its state rebuilt from its log (and the log itself with `with_events`)."""
    row = conn.execute(
        "SELECT id, workflow_id, definition, inputs, created_at FROM workflow_runs WHERE id = ?", (run_id,)
    ).fetchone()
    if row is None:
        return None
    definition = json.loads(row["definition"])
    log = events(conn, run_id)
    state = rebuild([node["id"] for node in definition["nodes"]], log)
    run = {"run_id": row["id"], "workflow_id": row["workflow_id"], "inputs": json.loads(row["inputs"])}
    run |= {"created_at": row["created_at"]} | state
    return run | ({"events": log} if with_events else {})


def list_runs(
    conn: sqlite3.Connection, workflow_id: str | None = None, limit: int = LIST_LIMIT
) -> list[dict[str, Any]]:
    """Newest first, each with its rebuilt state."""
    where, values = ("WHERE workflow_id = ?", [workflow_id]) if workflow_id else ("", [])
    ids = conn.execute(
        f"SELECT id FROM workflow_runs {where} ORDER BY created_at DESC, rowid DESC LIMIT ?", (*values, limit)
    ).fetchall()
    return [run for (run_id,) in ids if (run := get_run(conn, run_id)) is not None]


def find_node_run(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    """The node run whose WARDIAN_SESSION_ID is `session_id` (what `wardian agent` answers inside it)."""
    row = conn.execute(
        "SELECT e.run_id, e.node, e.payload, e.at, r.workflow_id FROM workflow_events e"
        " JOIN workflow_runs r ON r.id = e.run_id"
        " WHERE e.kind = 'node_started' AND json_extract(e.payload, '$.session_id') = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    started: dict[str, Any] = json.loads(row["payload"])
    return {
        "run_id": row["run_id"],
        "workflow_id": row["workflow_id"],
        "node": row["node"],
        "started_at": row["at"],
    } | started


FINAL_EVENTS = ("run_completed", "run_failed", "run_stopped", "run_interrupted")


def unfinished_runs(conn: sqlite3.Connection) -> list[str]:
    """Runs whose log has no final event: running, or left so by a host that died."""
    marks = ", ".join("?" for _ in FINAL_EVENTS)
    rows = conn.execute(
        "SELECT id FROM workflow_runs WHERE id NOT IN"
        f" (SELECT run_id FROM workflow_events WHERE kind IN ({marks})) ORDER BY created_at",
        FINAL_EVENTS,
    ).fetchall()
    return [row[0] for row in rows]


def runs_awaiting_approval(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The runs not ended that asked a person for an approval (`wardian inbox`): few, however
    many runs the log holds, so the inbox rebuilds only these."""
    ids = conn.execute(
        "SELECT DISTINCT run_id FROM workflow_events a WHERE a.kind = 'node_awaiting_approval' AND NOT EXISTS"
        " (SELECT 1 FROM workflow_events e WHERE e.run_id = a.run_id AND e.kind IN"
        " ('run_completed', 'run_failed', 'run_stopped', 'run_interrupted'))"
    ).fetchall()
    return [run for (run_id,) in ids if (run := get_run(conn, run_id)) is not None]
