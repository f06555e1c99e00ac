"""The `usage` table: what each turn cost, as the CLI recorded it, and its totals.

A figure the CLI left out is NULL, and SQL's SUM of only NULLs is NULL: a total says
"unknown" rather than 0 when no turn reported that figure. `(agent, turn_key)` is unique,
so a record read again (a host restart, a source re-read from its start) counts once.
Plain data in and out: the CLI's read path loads no pydantic (the host checks each report
against `wardian_core.provider_models.UsageReport` before it gets here).
"""

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from wardian_core.clock import now_iso
from wardian_core.db.events import KEEP_DAYS, prune_rows
from wardian_core.usage_sums import SUMMED_FIGURES

# What a turn's row holds besides the sums: the latest of these says how full the context is now.
LATEST_FIGURES = ("model", "context_used", "context_window")
Grouping = Literal["agent", "class", "provider", "day"]
GROUPINGS: tuple[Grouping, ...] = ("agent", "class", "provider", "day")

_SUMS = ", ".join(f"SUM(u.{name}) AS {name}" for name in SUMMED_FIGURES)
_GROUP_KEYS: dict[Grouping, str] = {
    "agent": "a.name",
    "class": "a.class",
    "provider": "a.provider",
    "day": "substr(u.at, 1, 10)",
}


def add_usage(
    conn: sqlite3.Connection, agent_uuid: str, report: dict[str, Any], evidence: dict[str, Any], at: str | None = None
) -> bool:
    """Store one turn's report (a `UsageReport` as plain data). A turn stored already takes the
    newer figures (a CLI that rewrites a record as it completes: Claude's transcript lines of one
    message) and stays one turn. False when nothing changed."""
    columns = ("model", *SUMMED_FIGURES, "context_used", "context_window", "rate_limits")
    limits = report.get("rate_limits") or None
    values = [*(report.get(name) for name in columns[:-1]), json.dumps(limits) if limits else None]
    updates = ", ".join(f"{name} = excluded.{name}" for name in columns)
    changed = " OR ".join(f"{name} IS NOT excluded.{name}" for name in columns)
    cursor = conn.execute(
        f"INSERT INTO usage (agent, turn_key, {', '.join(columns)}, evidence, at)"
        f" VALUES (?, ?, {', '.join('?' for _ in columns)}, ?, ?)"
        f" ON CONFLICT (agent, turn_key) DO UPDATE SET {updates}, evidence = excluded.evidence WHERE {changed}",
        (agent_uuid, report["turn_key"], *values, json.dumps(evidence), at or now_iso()),
    )
    return cursor.rowcount == 1


def list_usage(conn: sqlite3.Connection, agent_uuid: str) -> list[dict[str, Any]]:
    """An agent's turns, oldest first."""
    rows = conn.execute("SELECT * FROM usage WHERE agent = ? ORDER BY id", (agent_uuid,)).fetchall()
    return [_turn(dict(row)) for row in rows]


def _turn(row: dict[str, Any]) -> dict[str, Any]:
    row["rate_limits"] = json.loads(row["rate_limits"]) if row["rate_limits"] else []
    row["evidence"] = json.loads(row["evidence"])
    return row


def agent_summaries(conn: sqlite3.Connection, agent_uuids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each agent's usage as `agent show/list --fields usage` and the web view show it: sums of
    every figure, the latest model and context fill, the latest rate-limit windows reported."""
    wanted = list(agent_uuids)
    summaries = {uuid: empty_summary() for uuid in wanted}
    for start in range(0, len(wanted), 500):  # SQLite caps the parameters of one statement
        batch = wanted[start : start + 500]
        marks = ", ".join("?" for _ in batch)
        sums = conn.execute(
            f"SELECT u.agent, COUNT(*) AS turns, {_SUMS}, MAX(u.at) AS last_at FROM usage u"
            f" WHERE u.agent IN ({marks}) GROUP BY u.agent",
            batch,
        ).fetchall()
        for row in sums:
            summaries[row["agent"]] |= {key: row[key] for key in ("turns", *SUMMED_FIGURES, "last_at")}
        for uuid in batch:
            if summaries[uuid]["turns"]:
                summaries[uuid] |= _latest(conn, uuid)
    return summaries


def attach_summaries(home: Path, records: list[dict[str, Any]]) -> None:
    """Fill each agent record's `usage` field (`agent show/list --fields usage`) from state.db,
    where the host writes each turn as it is reported: the same answer with or without a host."""
    from wardian_core.db.connection import reading

    with reading(home) as conn:
        summaries = agent_summaries(conn, [record["uuid"] for record in records])
    for record in records:
        record["usage"] = summaries[record["uuid"]]


def empty_summary() -> dict[str, Any]:
    """The summary of an agent no turn reported for: nothing known."""
    return (
        {"turns": 0, **dict.fromkeys(SUMMED_FIGURES), "last_at": None}
        | _context(None, None, None)
        | {"rate_limits": []}
    )


def _latest(conn: sqlite3.Connection, agent_uuid: str) -> dict[str, Any]:
    """The newest turn's model and context, and the newest rate-limit windows (a CLI reports them
    on some turns only)."""
    last = conn.execute(
        "SELECT model, context_used, context_window FROM usage WHERE agent = ? ORDER BY id DESC LIMIT 1",
        (agent_uuid,),
    ).fetchone()
    limits = conn.execute(
        "SELECT rate_limits FROM usage WHERE agent = ? AND rate_limits IS NOT NULL ORDER BY id DESC LIMIT 1",
        (agent_uuid,),
    ).fetchone()
    return _context(last["model"], last["context_used"], last["context_window"]) | {
        "rate_limits": json.loads(limits["rate_limits"]) if limits else []
    }


def _context(model: str | None, used: int | None, window: int | None) -> dict[str, Any]:
    fill = round(used / window, 4) if used is not None and window else None
    return {"model": model, "context": {"used": used, "window": window, "fill": fill}}


def totals(conn: sqlite3.Connection, by: Grouping | None, since: str | None = None) -> list[dict[str, Any]]:
    """`wardian usage`: the sums per agent, class, provider or day (UTC), of turns at or after
    `since`; `by` None: one row of them all."""
    key = _GROUP_KEYS[by] if by else "NULL"
    label = f"{key} AS {by}, " if by else ""
    grouped = f" GROUP BY {key} ORDER BY {key}" if by else ""
    rows = conn.execute(
        f"SELECT {label}COUNT(*) AS turns, {_SUMS} FROM usage u JOIN agents a ON a.uuid = u.agent"
        f" WHERE u.at >= ?{grouped}",
        (since or "",),
    ).fetchall()
    return [dict(row) for row in rows]


def prune_usage(conn: sqlite3.Connection, *, keep_days: float = KEEP_DAYS) -> int:
    """Drop turns as old as events are dropped (`keep_days`), but never by count: a busy agent makes
    over 1000 calls in a day, and a turn dropped while its CLI's record stays would come back, and
    count twice, the next time a host restart reads that record again."""
    return prune_rows(conn, "usage", "at", keep_per_agent=None, keep_days=keep_days)
