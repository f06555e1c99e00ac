"""The `telemetry_positions` table: how far the host read each telemetry source of an agent's
launch (`wardian_core.telemetry_positions`), as JSON text, keyed by the launch's pid."""

import sqlite3

from wardian_core.db.connection import transaction


def record(conn: sqlite3.Connection, agent_uuid: str, launch_pid: int, positions: dict[str, str]) -> None:
    """Store the latest positions of a launch's sources, in one transaction."""
    rows = [(agent_uuid, launch_pid, source, position) for source, position in positions.items()]
    with transaction(conn):
        conn.executemany(
            "INSERT INTO telemetry_positions (agent, launch_pid, source, position) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (agent, source) DO UPDATE SET launch_pid = excluded.launch_pid,"
            " position = excluded.position",
            rows,
        )


def saved(conn: sqlite3.Connection, agent_uuid: str, launch_pid: int) -> dict[str, str]:
    """The positions recorded for this launch of the agent (none for another launch's pid)."""
    rows = conn.execute(
        "SELECT source, position FROM telemetry_positions WHERE agent = ? AND launch_pid = ?",
        (agent_uuid, launch_pid),
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def forget(conn: sqlite3.Connection, agent_uuid: str) -> None:
    """Drop an agent's positions: a new launch reads its sources by their normal start."""
    conn.execute("DELETE FROM telemetry_positions WHERE agent = ?", (agent_uuid,))
