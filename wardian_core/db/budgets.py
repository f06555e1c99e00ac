"""The `budgets` table: each agent's own budget layer and its hold, and what it has used.

Plain data in and out (the CLI's read path, `wardian usage`, loads it without a host). A hold is
a row's `held`, JSON of when and why; None while the agent takes prompts.
"""

import json
import sqlite3
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from wardian_core.clock import now_iso
from wardian_core.db.events import add_event

if TYPE_CHECKING:
    from wardian_core.settings.model import BudgetsSettings


def own_limits(conn: sqlite3.Connection, agent_uuid: str) -> dict[str, Any]:
    row = conn.execute("SELECT limits FROM budgets WHERE agent = ?", (agent_uuid,)).fetchone()
    return dict(json.loads(row["limits"])) if row else {}


def hold_of(conn: sqlite3.Connection, agent_uuid: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT held FROM budgets WHERE agent = ?", (agent_uuid,)).fetchone()
    return dict(json.loads(row["held"])) if row and row["held"] else None


def store_limits(conn: sqlite3.Connection, agent_uuid: str, limits: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO budgets (agent, limits, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (agent) DO UPDATE SET limits = excluded.limits, updated_at = excluded.updated_at",
        (agent_uuid, json.dumps(limits), now_iso()),
    )


def store_hold(conn: sqlite3.Connection, agent_uuid: str, held: dict[str, Any] | None) -> None:
    """Hold the agent (`held`: when and why) or lift its hold (None); the change is an event too."""
    conn.execute(
        "INSERT INTO budgets (agent, held, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (agent) DO UPDATE SET held = excluded.held, updated_at = excluded.updated_at",
        (agent_uuid, json.dumps(held) if held else None, now_iso()),
    )
    add_event(conn, agent_uuid, "budget_reached" if held else "budget_lifted", held or {})


def held_agents(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every held agent: uuid, name and its hold (the person's queue lists them)."""
    rows = conn.execute(
        "SELECT b.agent AS uuid, a.name AS name, b.held AS held FROM budgets b JOIN agents a ON a.uuid = b.agent"
        " WHERE b.held IS NOT NULL ORDER BY b.updated_at"
    ).fetchall()
    return [{"uuid": row["uuid"], "name": row["name"], "held": json.loads(row["held"])} for row in rows]


def used(
    conn: sqlite3.Connection, agent_uuid: str, created_at: str, count_cache_reads: bool, now: datetime | None = None
) -> dict[str, Any]:
    """What the agent used: tokens (input with cache writes, output; cache reads when counted),
    dollars (None when no turn reported a cost) and minutes since its spawn (`created_at`)."""
    cache_reads = " + COALESCE(cache_read_tokens, 0)" if count_cache_reads else ""
    row = conn.execute(
        "SELECT SUM(COALESCE(input_tokens, 0) + COALESCE(cache_write_tokens, 0) + COALESCE(output_tokens, 0)"
        f"{cache_reads}) AS tokens, SUM(cost_usd) AS usd FROM usage WHERE agent = ?",
        (agent_uuid,),
    ).fetchone()
    return {"tokens": int(row["tokens"] or 0), "usd": row["usd"], "minutes": minutes_since(created_at, now)}


def minutes_since(moment: str, now: datetime | None = None) -> float:
    started = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    if started.tzinfo is None:
        started = started.replace(tzinfo=UTC)
    return round(max(0.0, ((now or datetime.now(UTC)) - started).total_seconds() / 60), 3)


def agent_budget(conn: sqlite3.Connection, settings: "BudgetsSettings", agent: dict[str, Any]) -> dict[str, Any]:
    """`wardian agent budget NAME`'s answer for `agent` (its row or record): the budget in force,
    where each figure comes from, what is used and left, which figures are reached, the hold."""
    from wardian_core.budgets import effective_budget, left, reached

    budget = effective_budget(settings, agent["class"], agent["name"], own_limits(conn, agent["uuid"]))
    spent = used(conn, agent["uuid"], agent["created_at"], budget.count_cache_reads)
    return {
        "agent": agent["name"],
        "uuid": agent["uuid"],
        "budget": budget.model_dump(exclude={"sources"}),
        "sources": budget.sources,
        "used": spent,
        "left": left(budget, spent),
        "reached": reached(budget, spent),
        "held": hold_of(conn, agent["uuid"]),
    }
