"""Queries on the `agents` table. Rows come back as plain dicts keyed by column."""

import functools
import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict, cast

from wardian_core.clock import now_iso
from wardian_core.db.connection import transaction
from wardian_core.db.events import add_event
from wardian_core.statuses import Status
from wardian_core.stored_text import check_stored_fields

if TYPE_CHECKING:
    from pydantic import TypeAdapter

# One row as the host keeps it (LiveAgent.row): the JSON columns stay text. The functional
# form because `class` is a keyword.
AgentRow = TypedDict(
    "AgentRow",
    {
        "uuid": str,
        "name": str,
        "class": str,
        "provider": str,
        "workspace": str | None,
        "description": str | None,
        "status": Status,
        "pid": int | None,
        "started_at": str | None,
        "last_status_at": str | None,
        "provider_session_id": str | None,
        "is_off": int,
        "created_at": str,
        "status_evidence": str | None,
        "launch_config": str | None,
        "provider_settings": str | None,
        "process_identity": str | None,
        "worktree": str | None,
        "worktree_folder": str | None,
        "branch": str | None,
        "limit": str | None,
    },
)
AGENT_COLUMNS = tuple(AgentRow.__annotations__)
_SELECT = "SELECT " + ", ".join(f'"{c}"' for c in AGENT_COLUMNS) + " FROM agents"
# What follows the agent's process: a write of these alone is kept while state.db cannot
# take it (see kept_writes), so the host's view never waits for disk space.
PROCESS_STATE_COLUMNS = frozenset(
    {"pid", "started_at", "is_off", "provider_session_id", "status_evidence", "process_identity"}
)


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
    check_stored_fields({"description": description})
    created_at = now_iso()
    conn.execute(
        'INSERT INTO agents (uuid, name, "class", provider, workspace, description, status, is_off, created_at)'
        " VALUES (?, ?, ?, ?, ?, ?, 'off', 1, ?)",
        (agent_uuid, name, class_name, provider, workspace, description, created_at),
    )
    return get_agent(conn, agent_uuid) or {}


def get_agent(conn: sqlite3.Connection, agent_uuid: str) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE uuid = ?", (agent_uuid,)).fetchone()
    return _as_stored(conn, dict(row)) if row else None


def find_agent_by_name(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE name = ? COLLATE NOCASE", (name,)).fetchone()
    return dict(row) if row else None


def agent_row(row: Mapping[str, Any]) -> AgentRow:
    """A row read from `agents`, checked against its type: a status state.db should not hold
    fails here, where it was read, not where it is next compared."""
    return _agent_row_adapter().validate_python(dict(row))


@functools.cache
def _agent_row_adapter() -> "TypeAdapter[AgentRow]":
    # Built on first use: pydantic costs the CLI's read path ~50 ms to import, and `wardian
    # agent <name>` reads rows as plain dicts without it. Before Python 3.12 pydantic reads a
    # TypedDict only from typing_extensions, which costs the read path ~10 ms more: the
    # checked type is that module's copy of AgentRow, made here.
    from pydantic import TypeAdapter
    from typing_extensions import TypedDict as CheckedTypedDict

    # The functional form on purpose, and untyped for mypy: the fields are AgentRow's, read at run time.
    checked = CheckedTypedDict("AgentRow", dict(AgentRow.__annotations__))  # type: ignore[misc]  # noqa: UP013
    return cast("TypeAdapter[AgentRow]", TypeAdapter(checked))


def status_time(conn: sqlite3.Connection, agent_uuid: str) -> str | None:
    """When the agent's status last changed, with a kept write applied (what state.db will hold)."""
    row = get_agent(conn, agent_uuid)
    return None if row is None else row["last_status_at"]


def name_taken(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM agents WHERE name = ? COLLATE NOCASE", (name,)).fetchone() is not None


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
    return [_as_stored(conn, dict(row)) for row in rows]


def _as_stored(conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """`row` as state.db will hold it once the host's kept writes land. Only the host's writer
    keeps writes: the CLI's plain reader skips the module (and its imports) altogether."""
    if type(conn) is sqlite3.Connection:
        return row
    from wardian_core.db import kept_writes

    return kept_writes.overlay(conn, row)


def _keep_or_write(conn: sqlite3.Connection, agent_uuid: str, columns: dict[str, Any], run: Callable[[], None]) -> bool:
    from wardian_core.db import kept_writes  # the host's writes only: off the CLI's read path

    return kept_writes.write(conn, kept_writes.KeptWrite(agent_uuid, columns, run))


def update_columns(conn: sqlite3.Connection, agent_uuid: str, **values: Any) -> bool:
    """Set some columns of one agent (names from AGENT_COLUMNS only); False when the write
    was kept for a retry (see kept_writes): state.db does not hold it yet."""
    unknown = set(values) - set(AGENT_COLUMNS)
    if unknown:
        raise ValueError(f"unknown agent columns {sorted(unknown)}")
    check_stored_fields(values)
    assignments = ", ".join(f'"{column}" = ?' for column in values)

    def run() -> None:
        conn.execute(f"UPDATE agents SET {assignments} WHERE uuid = ?", (*values.values(), agent_uuid))

    if set(values) <= PROCESS_STATE_COLUMNS:
        return _keep_or_write(conn, agent_uuid, values, run)
    from wardian_core.db import kept_writes

    kept_writes.flush(conn)  # earlier writes first, where the disk lets them
    run()
    return True


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
    """Store a status only when it differs from the stored one; one event per real change.

    On a host's connection a status that state.db cannot take yet is kept for a retry
    and counts as stored: the host's view follows the agent, the file catches up.
    """
    row = get_agent(conn, agent_uuid)  # with kept writes applied: what state.db will hold
    if row is None or row["status"] == status:
        return False
    evidence = evidence or {}
    columns = {
        "status": status,
        "last_status_at": at or now_iso(),
        "is_off": int(status == "off"),
        "status_evidence": json.dumps(evidence),
    }
    _keep_or_write(conn, agent_uuid, columns, lambda: _store_status(conn, agent_uuid, columns, evidence))
    return True


def _store_status(conn: sqlite3.Connection, agent_uuid: str, columns: dict[str, Any], evidence: dict[str, Any]) -> None:
    with transaction(conn):
        row = conn.execute("SELECT status FROM agents WHERE uuid = ?", (agent_uuid,)).fetchone()
        if row is None or row["status"] == columns["status"]:
            return
        conn.execute(
            "UPDATE agents SET status = ?, last_status_at = ?, is_off = ?, status_evidence = ? WHERE uuid = ?",
            (columns["status"], columns["last_status_at"], columns["is_off"], columns["status_evidence"], agent_uuid),
        )
        payload = {"from": row["status"], "to": columns["status"], "evidence": evidence}
        add_event(conn, agent_uuid, "status", payload, at=columns["last_status_at"])


def record_process(conn: sqlite3.Connection, agent_uuid: str, *, pid: int | None, started_at: str | None) -> None:
    update_columns(conn, agent_uuid, pid=pid, started_at=started_at)
