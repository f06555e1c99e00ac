"""Queries on the `worktrees` table and the agents working in each worktree."""

import sqlite3
from typing import Any

from wardian_core.clock import now_iso
from wardian_core.db.connection import transaction
from wardian_core.worktrees.commands import PORT_SPAN
from wardian_core.worktrees.records import WorktreeRecord

FIRST_PORT = 41000
LAST_PORT = 60000
_COLUMNS = tuple(WorktreeRecord.model_fields)
_SELECT = "SELECT " + ", ".join(_COLUMNS) + " FROM worktrees"


def insert_worktree(conn: sqlite3.Connection, fields: dict[str, Any]) -> WorktreeRecord:
    """Store a new worktree with the lowest free port base; one transaction, so two at once differ."""
    with transaction(conn):
        taken = {row[0] for row in conn.execute("SELECT port_base FROM worktrees")}
        port_base = next(port for port in range(FIRST_PORT, LAST_PORT, PORT_SPAN) if port not in taken)
        record = WorktreeRecord.model_validate(fields | {"port_base": port_base, "created_at": now_iso()})
        values = record.model_dump(mode="json")
        conn.execute(
            f"INSERT INTO worktrees ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})",
            [values[column] for column in _COLUMNS],
        )
    return record


def get_worktree(conn: sqlite3.Connection, worktree_id: str) -> WorktreeRecord | None:
    row = conn.execute(_SELECT + " WHERE id = ?", (worktree_id,)).fetchone()
    return WorktreeRecord.model_validate(dict(row)) if row else None


def find_by_folder(conn: sqlite3.Connection, folder: str) -> WorktreeRecord | None:
    row = conn.execute(_SELECT + " WHERE worktree_folder = ?", (folder,)).fetchone()
    return WorktreeRecord.model_validate(dict(row)) if row else None


def list_worktrees(conn: sqlite3.Connection) -> list[WorktreeRecord]:
    return [WorktreeRecord.model_validate(dict(row)) for row in conn.execute(_SELECT + " ORDER BY created_at, id")]


def member_agents(conn: sqlite3.Connection, worktree_id: str) -> list[str]:
    rows = conn.execute("SELECT name FROM agents WHERE worktree = ? ORDER BY created_at, name", (worktree_id,))
    return [row[0] for row in rows]


def delete_worktree(conn: sqlite3.Connection, worktree_id: str) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE agents SET worktree = NULL, worktree_folder = NULL, branch = NULL WHERE worktree = ?",
            (worktree_id,),
        )
        conn.execute("DELETE FROM worktrees WHERE id = ?", (worktree_id,))
