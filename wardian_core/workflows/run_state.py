"""A workflow run's state, rebuilt from its append-only event log (the log is the truth).

Events (`kind`, `node`, `payload`): run_started, node_started {session_id, provider,
run_mode, pid, ...}, node_completed {output, usage}, node_failed {error, usage}, node_skipped {because},
node_awaiting_approval {message}, node_approved {by}, node_stopped {reason},
run_completed, run_failed, run_stopped, run_interrupted.
"""

from typing import Any

from wardian_core.usage_sums import add_up

# The run is still going in any of these node states.
OPEN_NODE_STATES = ("pending", "running", "awaiting_approval")

_NODE_STATE_OF = {
    "node_started": "running",
    "node_completed": "completed",
    "node_failed": "failed",
    "node_skipped": "skipped",
    "node_awaiting_approval": "awaiting_approval",
    "node_approved": "completed",
    "node_stopped": "stopped",
}
_RUN_STATE_OF = {
    "run_started": "running",
    "run_completed": "completed",
    "run_failed": "failed",
    "run_stopped": "stopped",
    "run_interrupted": "interrupted",
}


def rebuild(node_ids: list[str], events: list[dict[str, Any]]) -> dict[str, Any]:
    """{"status", "started_at", "ended_at", "nodes": {id: {"state", "output", "error", ...}}}."""
    nodes: dict[str, dict[str, Any]] = {node_id: {"state": "pending"} for node_id in node_ids}
    run: dict[str, Any] = {"status": "running", "started_at": None, "ended_at": None, "nodes": nodes}
    for event in events:
        kind, at, payload = event["kind"], event["at"], event.get("payload") or {}
        if kind in _RUN_STATE_OF:
            run["status"] = _RUN_STATE_OF[kind]
            run["started_at" if kind == "run_started" else "ended_at"] = at
            if payload.get("error"):
                run["error"] = payload["error"]
            continue
        node = nodes.get(event.get("node") or "")
        if node is None or kind not in _NODE_STATE_OF:
            continue
        node["state"] = _NODE_STATE_OF[kind]
        node.update(payload)
        if kind in ("node_started", "node_awaiting_approval"):
            node["started_at"] = at
        else:
            node["ended_at"] = at
    # What the run's agent nodes cost, as their CLIs reported it (each node's `usage`).
    run["usage"] = add_up(node["usage"] for node in nodes.values() if node.get("usage"))
    return run


def open_nodes(state: dict[str, Any]) -> list[str]:
    return [node_id for node_id, node in state["nodes"].items() if node["state"] in OPEN_NODE_STATES]
