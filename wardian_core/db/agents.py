"""Queries on the `agents` table. Rows come back as plain dicts keyed by column."""

import json
import sqlite3
from typing import Any

from wardian_core.clock import now_iso
from wardian_core.db.connection import transaction
from wardian_core.db.events import add_event

AGENT_COLUMNS = (
    "uuid",
    "name",
    "class",
    "provider",
    "workspace",
    "description",
    "status",
    "pid",
    "started_at",
    "last_status_at",
    "provider_session_id",
    "is_off",
    "created_at",
    "status_evidence",
    "launch_config",
    "provider_settings",
)
_SELECT = "SELECT " + ", ".join(f'"{c}"' for c in AGENT_COLUMNS) + " FROM agents"


def insert_agent(
    conn: sqlite3.Connection,
    *,
    agent_uuid: str,
    name: str,
    class_name: str,
    provider: str,
    workspace: str | None,
    description: str | None = None,
) -> dict[str, Any]:
    """Insert a new, not yet running agent. A taken name raises sqlite3.IntegrityError."""
    created_at = now_iso()
    conn.execute(
        'INSERT INTO agents (uuid, name, "class", provider, workspace, description, status, is_off, created_at)'
        " VALUES (?, ?, ?, ?, ?, ?, 'off', 1, ?)",
        (agent_uuid, name, class_name, provider, workspace, description, created_at),
    )
    return get_agent(conn, agent_uuid) or {}


def get_agent(conn: sqlite3.Connection, agent_uuid: str) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE uuid = ?", (agent_uuid,)).fetchone()
    return dict(row) if row else None


def find_agent_by_name(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE name = ?", (name,)).fetchone()
    return dict(row) if row else None


def name_taken(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM agents WHERE name = ?", (name,)).fetchone() is not None


def list_agents(
    conn: sqlite3.Connection,
    *,
    workspace: str | None = None,
    status: str | None = None,
    class_name: str | None = None,
) -> list[dict[str, Any]]:
    clauses: list[str] = []
    values: list[Any] = []
    for column, value in (("workspace", workspace), ("status", status), ("class", class_name)):
        if value is not None:
            clauses.append(f'"{column}" = ?')
            values.append(value)
    where = " WHERE " + " AND ".join(clauses) if clauses else ""
    rows = conn.execute(_SELECT + where + " ORDER BY created_at, name", values).fetchall()
    return [dict(row) for row in rows]


def update_columns(conn: sqlite3.Connection, agent_uuid: str, **values: Any) -> None:
    """Set some columns of one agent (names from AGENT_COLUMNS only)."""
    unknown = set(values) - set(AGENT_COLUMNS)
    if unknown:
        raise ValueError(f"unknown agent columns {sorted(unknown)}")
    assignments = ", ".join(f'"{column}" = ?' for column in values)
    conn.execute(f"UPDATE agents SET {assignments} WHERE uuid = ?", (*values.values(), agent_uuid))


def delete_agent(conn: sqlite3.Connection, agent_uuid: str) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM events WHERE agent = ?", (agent_uuid,))
        conn.execute("DELETE FROM agents WHERE uuid = ?", (agent_uuid,))


def record_status(
    conn: sqlite3.Connection,
    agent_uuid: str,
    status: str,
    *,
    evidence: dict[str, Any] | None = None,
    at: str | None = None,
) -> bool:
    """Store a status only when it differs from the stored one; one event per real change."""
    at = at or now_iso()
    with transaction(conn):
        row = conn.execute("SELECT status FROM agents WHERE uuid = ?", (agent_uuid,)).fetchone()
        if row is None or row["status"] == status:
            return False
        conn.execute(
            "UPDATE agents SET status = ?, last_status_at = ?, is_off = ?, status_evidence = ? WHERE uuid = ?",
            (status, at, int(status == "off"), json.dumps(evidence or {}), agent_uuid),
        )
        payload = {"from": row["status"], "to": status, "evidence": evidence or {}}
        add_event(conn, agent_uuid, "status", payload, at=at)
    return True


def record_process(conn: sqlite3.Connection, agent_uuid: str, *, pid: int | None, started_at: str | None) -> None:
    update_columns(conn, agent_uuid, pid=pid, started_at=started_at)
