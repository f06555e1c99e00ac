"""The `events` table: an audit log per agent, pruned by count and by age."""

import json
import sqlite3
from typing import Any

from wardian_core.clock import iso_days_ago, now_iso
from wardian_core.db.connection import transaction

KEEP_PER_AGENT = 1000
KEEP_DAYS = 30


def add_event(
    conn: sqlite3.Connection, agent_uuid: str, kind: str, payload: dict[str, Any], *, at: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO events (agent, kind, payload, timestamp) VALUES (?, ?, ?, ?)",
        (agent_uuid, kind, json.dumps(payload, separators=(",", ":")), at or now_iso()),
    )


def add_tool_call(conn: sqlite3.Connection, agent_uuid: str, call: dict[str, Any]) -> None:
    """A tool call a provider reported, beside the status changes; pruned with them."""
    add_event(conn, agent_uuid, "tool_call", call)


def list_events(conn: sqlite3.Connection, agent_uuid: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT id, agent, kind, payload, timestamp FROM events WHERE agent = ? ORDER BY id", (agent_uuid,)
    ).fetchall()
    return [dict(row) | {"payload": json.loads(row["payload"])} for row in rows]


def last_event_id(conn: sqlite3.Connection, agent_uuid: str) -> int:
    """The id of the agent's newest event (0: none): later events have greater ids."""
    row = conn.execute("SELECT max(id) FROM events WHERE agent = ?", (agent_uuid,)).fetchone()
    return int(row[0] or 0)


def status_arrived_after(conn: sqlite3.Connection, agent_uuid: str, status: str, after_id: int) -> bool:
    """Whether the agent changed to `status` in an event after `after_id` (it may have left it since)."""
    row = conn.execute(
        "SELECT 1 FROM events WHERE agent = ? AND id > ? AND kind = 'status' AND json_extract(payload, '$.to') = ?"
        " LIMIT 1",
        (agent_uuid, after_id, status),
    ).fetchone()
    return row is not None


def prune_events(
    conn: sqlite3.Connection, *, keep_per_agent: int = KEEP_PER_AGENT, keep_days: float = KEEP_DAYS
) -> int:
    """Drop events older than `keep_days` and all but the newest `keep_per_agent` per agent."""
    return prune_rows(conn, "events", "timestamp", keep_per_agent=keep_per_agent, keep_days=keep_days)


def prune_rows(
    conn: sqlite3.Connection, table: str, time_column: str, *, keep_per_agent: int | None, keep_days: float
) -> int:
    """Drop `table`'s rows older than `keep_days` and, unless `keep_per_agent` is None, all but the
    newest `keep_per_agent` per agent (`table` and `time_column` are this package's own names)."""
    with transaction(conn):
        by_age = conn.execute(f"DELETE FROM {table} WHERE {time_column} < ?", (iso_days_ago(keep_days),)).rowcount
        if keep_per_agent is None:
            return by_age
        by_count = conn.execute(
            f"DELETE FROM {table} WHERE id IN (SELECT id FROM ("
            f" SELECT id, ROW_NUMBER() OVER (PARTITION BY agent ORDER BY id DESC) AS newest_first FROM {table}"
            ") WHERE newest_first > ?)",
            (keep_per_agent,),
        ).rowcount
    return by_age + by_count
