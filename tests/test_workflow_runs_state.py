"""A workflow run's state rebuilt from its log, the run's inputs, and an agent node's output."""

from typing import Any

import pytest

from wardian_core.errors import WardianError
from wardian_core.workflows.model import Workflow
from wardian_core.workflows.run_state import open_nodes, rebuild
from wardian_host.workflows.node_runs import NodeFailed, final_reply, json_output
from wardian_host.workflows.runner import run_inputs


def _event(kind: str, node: str | None = None, at: str = "t", **payload: object) -> dict:
    return {"kind": kind, "node": node, "at": at, "payload": payload}


def test_the_log_rebuilds_every_node_and_the_run() -> None:
    log = [
        _event("run_started", at="t0"),
        _event("node_started", "a", at="t1", session_id="s1", pid=7),
        _event("node_completed", "a", at="t2", output="hi"),
        _event("node_awaiting_approval", "gate", at="t3", message="ok?"),
        _event("node_failed", "gate", at="t4", error="rejected"),
        _event("node_skipped", "b", at="t4", because="gate"),
        _event("run_failed", at="t5", error="node gate failed"),
    ]

    run = rebuild(["a", "gate", "b", "c"], log)

    assert (run["status"], run["started_at"], run["ended_at"], run["error"]) == (
        "failed",
        "t0",
        "t5",
        "node gate failed",
    )
    assert run["nodes"]["a"] == {
        "state": "completed",
        "session_id": "s1",
        "pid": 7,
        "output": "hi",
        "started_at": "t1",
        "ended_at": "t2",
    }
    assert [run["nodes"][n]["state"] for n in ("gate", "b", "c")] == ["failed", "skipped", "pending"]
    assert open_nodes(run) == ["c"]


def test_a_run_totals_what_its_agent_nodes_reported() -> None:
    first = {"turns": 1, "input_tokens": 1200, "output_tokens": 70, "cost_usd": None, "cache_read_tokens": 300}
    second = {"turns": 2, "input_tokens": 5, "output_tokens": 1, "cost_usd": 0.25, "cache_read_tokens": None}
    log = [
        _event("run_started"),
        _event("node_completed", "a", output="hi", usage=first),
        _event("node_failed", "b", error="exit 1", usage=second),
        _event("node_completed", "c", output="shell: no usage"),
    ]

    usage = rebuild(["a", "b", "c"], log)["usage"]

    assert (usage["turns"], usage["input_tokens"], usage["output_tokens"]) == (3, 1205, 71)
    assert (usage["cache_read_tokens"], usage["cost_usd"]) == (300, 0.25)
    assert (usage["cache_write_tokens"], usage["reasoning_tokens"]) == (None, None)  # no node reported one


def test_a_node_counts_each_reported_turn_once_with_its_newest_figures() -> None:
    from wardian_core.usage_sums import reported_turns

    events: list[dict[str, Any]] = [
        {"kind": "usage_reported", "usage": {"turn_key": "m1", "output_tokens": 1}},
        {"kind": "usage_reported", "usage": {"turn_key": "m1", "output_tokens": 70, "input_tokens": 3}},
        {"kind": "turn_completed", "message": "MOCK-REPLY"},
        {"kind": "usage_reported", "usage": {"turn_key": "m2", "output_tokens": 5}},
    ]
    assert reported_turns(events) == {
        "turns": 2,
        "input_tokens": 3,
        "output_tokens": 75,
        "cache_read_tokens": None,
        "cache_write_tokens": None,
        "reasoning_tokens": None,
        "cost_usd": None,
    }


def test_a_log_cut_short_by_a_crash_is_still_a_running_run() -> None:
    run = rebuild(["a", "b"], [_event("run_started"), _event("node_started", "a", pid=9)])

    assert run["status"] == "running" and open_nodes(run) == ["a", "b"]


def _workflow(**inputs: dict) -> Workflow:
    return Workflow.model_validate(
        {"id": "w", "inputs": inputs, "nodes": [{"id": "a", "kind": "shell", "command": "true"}]}
    )


def test_inputs_take_defaults_and_refuse_unknown_or_missing_ones() -> None:
    workflow = _workflow(task={}, level={"default": "3"})

    assert run_inputs(workflow, {"task": "x"}) == {"level": "3", "task": "x"}
    with pytest.raises(WardianError) as refused:
        run_inputs(workflow, {"other": "y"})
    assert refused.value.code == "validation_failed"
    assert (refused.value.details["unknown"], refused.value.details["missing"]) == (["other"], ["task"])


def test_the_output_is_the_last_turns_reply() -> None:
    events = [
        {"kind": "turn_completed", "message": "first"},
        {"kind": "turn_started"},
        {"kind": "turn_completed", "message": "final answer"},
        {"kind": "session_ended"},
    ]

    assert final_reply(events) == "final answer"
    assert final_reply([{"kind": "error", "message": "x"}]) == ""


def test_a_declared_output_schema_takes_the_first_fitting_object_in_the_reply() -> None:
    reply = 'Sure. {"note": 1} and then {"verdict": "ok", "score": 3} done'

    assert json_output(reply, {"required": ["verdict"]}) == {"verdict": "ok", "score": 3}
    with pytest.raises(NodeFailed):
        json_output("no json here {broken", {"required": ["verdict"]})
