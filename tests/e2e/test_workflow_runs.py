"""Workflow runs through the real `wardian` command and host, with shell and approval nodes
(agent nodes against the real CLIs are in the providers' real-CLI suites)."""

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from wardian_core.control import endpoint


def _shell(node_id: str, command: str, **fields: Any) -> dict[str, Any]:
    return {"id": node_id, "kind": "shell", "command": command} | fields


def _edges(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"from": source, "to": target} for source, target in pairs]


@pytest.fixture
def workflow_file(wardian_home: Path) -> Callable[..., Path]:
    def write(workflow_id: str, nodes: list[dict[str, Any]], edges: list[dict[str, str]], **fields: Any) -> Path:
        folder = wardian_home / "workflows"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{workflow_id}.json"
        path.write_text(json.dumps({"id": workflow_id, "nodes": nodes, "edges": edges} | fields))
        return path

    return write


@pytest.fixture
def run_workflow(run_wardian, workspace: Path) -> Callable[..., dict[str, Any]]:
    def run(workflow_id: str, *options: str) -> dict[str, Any]:
        result = run_wardian("workflow", "run", workflow_id, "--workspace", str(workspace), *options)
        assert result.returncode == 0, result.stderr
        return result.json()["run"]

    return run


def _run_state(run_wardian, workflow_id: str, run_id: str) -> dict[str, Any]:
    result = run_wardian("workflow", "show", workflow_id, "--run", run_id)
    assert result.returncode == 0, result.stderr
    return result.json()["run"]


def _until(run_wardian, workflow_id: str, run_id: str, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The run once `ready` holds; the CLI offers no event for a node's state, so its log is read again."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = _run_state(run_wardian, workflow_id, run_id)
        if ready(state):
            return state
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} never got there: {state}")


def _states(run: dict[str, Any]) -> dict[str, str]:
    return {node_id: node["state"] for node_id, node in run["nodes"].items()}


def test_a_chain_passes_outputs_and_inputs_along(workflow_file, run_workflow, run_wardian) -> None:
    nodes = [
        _shell("greet", "echo hello"),
        _shell("join", "echo {{nodes.greet.output}}-{{inputs.who}}"),
        _shell("shout", "printf %s {{nodes.join.output}} | tr a-z A-Z"),
    ]
    workflow_file("chain", nodes, _edges(("greet", "join"), ("join", "shout")), inputs={"who": {}})

    run = run_workflow("chain", "--input", "who=world; rm -rf /", "--wait", "--timeout", "60s")

    assert run["status"] == "completed"
    # Interpolated into a shell command, a value is quoted: it is text, never code.
    assert run["nodes"]["shout"]["output"] == "HELLO-WORLD; RM -RF /"
    sessions = {node["session_id"] for node in run["nodes"].values()}
    assert len(sessions) == 3
    kinds = [event["kind"] for event in _run_state(run_wardian, "chain", run["run_id"])["events"]]
    assert kinds[0] == "run_started" and kinds[-1] == "run_completed"
    listed = run_wardian("workflow", "runs", "--id", "chain").json()["runs"]
    assert [(r["run_id"], r["status"]) for r in listed] == [(run["run_id"], "completed")]


def test_independent_branches_run_at_the_same_time(workflow_file, run_workflow, workspace: Path) -> None:
    # Each branch waits for the other's file: run one after the other, both would time out.
    meet = "touch {me}.ready; while [ ! -e {other}.ready ]; do sleep 0.05; done; echo met"
    nodes = [
        _shell("left", meet.format(me="left", other="right"), timeout=20),
        _shell("right", meet.format(me="right", other="left"), timeout=20),
        _shell("after", "echo {{nodes.left.output}} {{nodes.right.output}}"),
    ]
    workflow_file("branches", nodes, _edges(("left", "after"), ("right", "after")))

    run = run_workflow("branches", "--wait", "--timeout", "60s")

    assert run["status"] == "completed", run
    assert run["nodes"]["after"]["output"] == "met met"


def test_a_failing_node_skips_its_dependants_and_the_rest_goes_on(workflow_file, run_workflow) -> None:
    nodes = [
        _shell("broken", "echo oops >&2; exit 3"),
        _shell("after", "echo never"),
        _shell("later", "echo never either"),
        _shell("aside", "echo fine"),
    ]
    workflow_file("failing", nodes, _edges(("broken", "after"), ("after", "later")))

    run = run_workflow("failing", "--wait", "--timeout", "60s")

    assert run["status"] == "failed"
    assert _states(run) == {"broken": "failed", "after": "skipped", "later": "skipped", "aside": "completed"}
    broken = run["nodes"]["broken"]
    assert (broken["exit_code"], broken["stderr_tail"].strip()) == (3, "oops")
    assert run["nodes"]["later"]["because"] == "after"


@pytest.mark.parametrize("answer", ["approve", "reject"])
def test_an_approval_node_waits_for_its_answer(workflow_file, run_workflow, run_wardian, answer: str) -> None:
    nodes = [
        _shell("build", "echo v1.2"),
        {"id": "gate", "kind": "approval", "message": "ship {{nodes.build.output}}?"},
        _shell("ship", "echo shipped"),
    ]
    workflow_file("gated", nodes, _edges(("build", "gate"), ("gate", "ship")))
    run_id = run_workflow("gated")["run_id"]
    waiting = _until(run_wardian, "gated", run_id, lambda run: run["nodes"]["gate"]["state"] == "awaiting_approval")
    assert waiting["nodes"]["gate"]["message"] == "ship v1.2?" and waiting["nodes"]["ship"]["state"] == "pending"

    answered = run_wardian("workflow", "approve", run_id, "gate", *(["--reject"] if answer == "reject" else []))

    assert answered.returncode == 0, answered.stderr
    done = _until(run_wardian, "gated", run_id, lambda run: run["status"] != "running")
    if answer == "approve":
        assert (done["status"], _states(done)["ship"], done["nodes"]["ship"]["output"]) == (
            "completed",
            "completed",
            "shipped",
        )
    else:
        assert (done["status"], _states(done)["gate"], _states(done)["ship"]) == ("failed", "failed", "skipped")
    again = run_wardian("workflow", "approve", run_id, "gate")
    assert json.loads(again.stderr)["error"]["code"] == "request_failed"


def _long_node_run(workflow_file, run_workflow, run_wardian, workspace: Path, workflow_id: str) -> tuple[str, int]:
    """A run whose first node is a long command with a child; (run id, the child's pid)."""
    nodes = [_shell("long", "sleep 300 & echo $! > child.pid; wait"), _shell("next", "echo next")]
    workflow_file(workflow_id, nodes, _edges(("long", "next")))
    run_id = run_workflow(workflow_id)["run_id"]
    child_pid = workspace / "child.pid"

    def child_started(run: dict[str, Any]) -> bool:
        return (
            run["nodes"]["long"]["state"] == "running" and child_pid.is_file() and child_pid.read_text().strip() != ""
        )

    _until(run_wardian, workflow_id, run_id, child_started)
    return run_id, int(child_pid.read_text())


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_stop_ends_a_long_node_and_leaves_no_process(workflow_file, run_workflow, run_wardian, workspace) -> None:
    run_id, child = _long_node_run(workflow_file, run_workflow, run_wardian, workspace, "slow")

    stopped = run_wardian("workflow", "stop", run_id)

    assert stopped.returncode == 0, stopped.stderr
    run = stopped.json()["run"]
    assert run["status"] == "stopped"
    assert _states(run) == {"long": "stopped", "next": "stopped"}
    psutil.wait_procs([psutil.Process(child)], timeout=10) if not _gone(child) else None
    assert _gone(child)


def test_a_killed_host_leaves_its_runs_interrupted_and_no_process(
    workflow_file, run_workflow, run_wardian, workspace: Path, wardian_home: Path
) -> None:
    run_id, child = _long_node_run(workflow_file, run_workflow, run_wardian, workspace, "crash")
    host_pid = int(run_wardian("host", "status").json()["host"]["pid"])

    os.kill(host_pid, signal.SIGKILL)
    psutil.wait_procs([psutil.Process(host_pid)], timeout=10)
    endpoint.socket_path(wardian_home).unlink(missing_ok=True)
    assert run_wardian("host", "start").returncode == 0

    run = _run_state(run_wardian, "crash", run_id)
    assert run["status"] == "interrupted"
    assert run["nodes"]["long"]["state"] == "stopped" and run["nodes"]["long"]["reason"] == "interrupted"
    assert _gone(child)


def test_bad_runs_are_refused_and_nothing_runs(workflow_file, run_wardian, workspace: Path) -> None:
    workflow_file("needs", [_shell("a", "echo {{inputs.x}}")], [], inputs={"x": {}})
    workflow_file("broken", [_shell("a", "echo a")], _edges(("a", "nowhere")))

    unknown = run_wardian("workflow", "run", "nope", "--workspace", str(workspace))
    missing = run_wardian("workflow", "run", "needs", "--workspace", str(workspace))
    extra = run_wardian("workflow", "run", "needs", "--input", "x=1", "--input", "y=2", "--workspace", str(workspace))
    invalid = run_wardian("workflow", "run", "broken", "--workspace", str(workspace))

    assert (unknown.returncode, json.loads(unknown.stderr)["error"]["code"]) == (2, "not_found")
    for refused in (missing, extra, invalid):
        assert json.loads(refused.stderr)["error"]["code"] == "validation_failed", refused.stderr
    assert run_wardian("workflow", "runs").json()["runs"] == []


def test_inside_a_node_wardian_agent_is_the_node_run(workflow_file, run_workflow) -> None:
    workflow_file("whoami", [_shell("me", "wardian agent")], [])

    run = run_workflow("whoami", "--wait", "--timeout", "60s")

    me = json.loads(run["nodes"]["me"]["output"])["agent"]
    assert (me["kind"], me["run_id"], me["node"], me["workflow_id"]) == ("workflow_node", run["run_id"], "me", "whoami")
    assert me["uuid"] == run["nodes"]["me"]["session_id"]


def test_inside_a_node_the_output_flags_shape_the_node_runs_record(workflow_file, run_workflow) -> None:
    command = "wardian agent --field name; wardian agent --fields node,kind; NO_COLOR=1 wardian agent --pretty"
    workflow_file("shapes", [_shell("me", command)], [])

    run = run_workflow("shapes", "--wait", "--timeout", "60s")

    output = run["nodes"]["me"]["output"]
    name, rest = output.split("\n", 1)
    assert name == "shapes/me"  # NAME=$(wardian agent --field name) works in a node
    chosen, _, pretty = rest.partition("}\n}\n")
    assert json.loads(chosen + "}\n}")["agent"] == {"node": "me", "kind": "workflow_node"}
    assert pretty.splitlines()[0].split() == ["kind", "workflow_node"] and "{" not in pretty


def test_a_send_from_a_node_run_carries_its_identity(workflow_file, run_workflow, spawn, wait_status) -> None:
    spawn("listener", "bash", "--norc", "--noprofile")
    wait_status("listener", "idle")
    workflow_file("talker", [_shell("say", "wardian send 'echo from-node' --to listener")], [])

    run = run_workflow("talker", "--wait", "--timeout", "60s")

    sent = json.loads(run["nodes"]["say"]["output"])
    assert (sent["sender"], sent["sender_verified"]) == ("talker/say", True)
