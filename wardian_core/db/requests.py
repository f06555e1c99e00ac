"""The `requests` table: `wardian ask` requests and their replies (wardian_core.asks.AskRecord).

The host is the only writer. A reply is taken by one conditional UPDATE, so of two racing
replies exactly one lands and the other sees the request already answered.
"""

import json
import sqlite3
from typing import Any

from wardian_core.clock import now_iso

_COLUMNS = (
    "id, agent, agent_name, status, message, until, asker, asker_verified, created_at, delivery, reply, asker_machine"
)
LIST_LIMIT = 100


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _record(row: sqlite3.Row) -> dict[str, Any]:
    """A row as an AskRecord's fields."""
    verified = row["asker_verified"]
    return {
        "request_id": row["id"],
        "agent": row["agent_name"],
        "agent_uuid": row["agent"],
        "status": row["status"],
        "message": row["message"],
        "until": row["until"],
        "asker": row["asker"],
        "asker_verified": None if verified is None else bool(verified),
        "asker_machine": row["asker_machine"],
        "created_at": row["created_at"],
        "delivery": json.loads(row["delivery"]) if row["delivery"] else None,
        "reply": json.loads(row["reply"]) if row["reply"] else None,
    }


def insert_request(
    conn: sqlite3.Connection,
    *,
    request_id: str,
    agent_uuid: str,
    agent_name: str,
    message: str,
    until: str | None,
    asker: str | None,
    asker_verified: bool | None,
    asker_machine: str | None = None,
) -> dict[str, Any]:
    conn.execute(
        f"INSERT INTO requests ({_COLUMNS}) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, NULL, NULL, ?)",
        (request_id, agent_uuid, agent_name, message, until, asker, asker_verified, now_iso(), asker_machine),
    )
    return get_request(conn, request_id) or {}


def get_request(conn: sqlite3.Connection, request_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM requests WHERE id = ?", (request_id,)).fetchone()
    return _record(row) if row is not None else None


def record_delivery(conn: sqlite3.Connection, request_id: str, delivery: dict[str, Any], delivered: bool) -> None:
    """What typing the question gave; a question that never reached the agent is `undelivered`."""
    conn.execute(
        "UPDATE requests SET delivery = ?, status = CASE WHEN ? THEN status ELSE 'undelivered' END WHERE id = ?",
        (_json(delivery), delivered, request_id),
    )


def record_reply(conn: sqlite3.Connection, request_id: str, reply: dict[str, Any]) -> bool:
    """Take `reply` if the request still waits for one; False when another reply came first."""
    taken = conn.execute(
        "UPDATE requests SET status = ?, reply = ? WHERE id = ? AND status = 'pending'",
        (reply["status"], _json(reply), request_id),
    ).rowcount
    return taken == 1


def list_requests(
    conn: sqlite3.Connection, *, agent_uuid: str | None = None, status: str | None = None, limit: int = LIST_LIMIT
) -> list[dict[str, Any]]:
    """Newest first."""
    clauses, values = [], []
    if agent_uuid is not None:
        clauses.append("agent = ?")
        values.append(agent_uuid)
    if status is not None:
        clauses.append("status = ?")
        values.append(status)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM requests{where} ORDER BY created_at DESC, rowid DESC LIMIT ?", (*values, limit)
    ).fetchall()
    return [_record(row) for row in rows]
