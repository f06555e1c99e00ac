"""What a page shows: every agent, recent asks with their replies, recent workflow runs with
their nodes; read from the host's live registry and its state.db when a page needs it."""

import sqlite3
from collections.abc import Callable
from typing import Any

from wardian_core.db.requests import list_requests
from wardian_core.db.usage import agent_summaries
from wardian_core.db.workflow_runs import list_runs
from wardian_core.inbox import last_lines
from wardian_core.settings.model import BudgetsSettings
from wardian_host.web.budgets import page_budget

SHOWN_ASKS = 20
SHOWN_RUNS = 10
# The fields of a node a page shows; a node's output can be long and stays in `workflow show`.
NODE_FIELDS = ("state", "error", "agent", "started_at", "ended_at", "usage")


def _run(run: dict[str, Any]) -> dict[str, Any]:
    nodes = {node_id: {key: node.get(key) for key in NODE_FIELDS} for node_id, node in run["nodes"].items()}
    return {key: run.get(key) for key in ("run_id", "workflow_id", "status", "created_at", "ended_at", "usage")} | {
        "nodes": nodes
    }


def ended(agent: dict[str, Any]) -> dict[str, Any] | None:
    """How an agent that ended in `error` ended: its exit code (None when the host could not
    learn it) and the last lines it printed, from the evidence its exit left; None otherwise."""
    if agent.get("status") != "error":
        return None
    evidence = agent.get("status_evidence") or {}
    exit_code = evidence.get("exit_code")
    output = str(evidence.get("output_tail") or evidence.get("line") or "")
    return {"exit_code": exit_code if isinstance(exit_code, int) else None, "last_lines": last_lines(output)}


def page_state(
    agents: Callable[[], list[dict[str, Any]]],
    conn: sqlite3.Connection,
    budgets: Callable[[], BudgetsSettings] | None = None,
) -> dict[str, Any]:
    """`agents`: every agent's snapshot, as `agents.list` answers them, with its usage and context
    fill (`wardian_core.db.usage.agent_summaries`, as `agent show --fields usage` gives it) and
    its use against its budget (`web.budgets.page_budget`; None without one). `budgets`: the
    `[budgets]` settings in force (the host's budget keeper's)."""
    shown = agents()
    usage = agent_summaries(conn, [agent["uuid"] for agent in shown])
    settings = budgets() if budgets is not None else None

    def budget(agent: dict[str, Any]) -> dict[str, Any] | None:
        return page_budget(conn, settings, agent) if settings is not None else None

    return {
        "agents": [
            agent | {"usage": usage[agent["uuid"]], "ended": ended(agent), "budget": budget(agent)} for agent in shown
        ],
        "asks": list_requests(conn, limit=SHOWN_ASKS),
        "runs": [_run(run) for run in list_runs(conn, limit=SHOWN_RUNS)],
    }
