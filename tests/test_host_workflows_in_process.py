"""Workflow runs on the in-process host (`running_host`): a failure names the `WorkflowRunner`
function that broke, and a test awaits a run's end instead of reading its log again and again
as tests/e2e/test_workflow_runs.py must through `wardian`."""

import os
from pathlib import Path
from typing import Any

import psutil
from answer_wire import assert_wired_unchanged
from in_process_agents import WAIT_SECONDS, first_line, read_state

from wardian_core.db import workflow_runs as run_rows
from wardian_core.workflows.model import Workflow
from wardian_host.testing.in_process import InProcessHost


def workflow(workflow_id: str, commands: dict[str, str], *edges: tuple[str, str]) -> Workflow:
    nodes = [{"id": node_id, "kind": "shell", "command": command} for node_id, command in commands.items()]
    links = [{"from": source, "to": target} for source, target in edges]
    return Workflow.model_validate({"id": workflow_id, "nodes": nodes, "edges": links})


def run_to_its_end(host: InProcessHost, definition: Workflow, workspace: Path) -> dict[str, Any]:
    runner = host.host.workflows

    async def run() -> dict[str, Any]:
        run_id = runner.start(definition, {}, workspace)
        assert await runner.wait(run_id, WAIT_SECONDS)
        run = runner.describe(run_id)
        assert_wired_unchanged("workflow.run", {"run": run})
        return run

    return host.call(run())


def started_with_a_sleeping_node(host: InProcessHost, workspace: Path) -> tuple[str, psutil.Process]:
    """A run whose only node has started (it names its process through a FIFO) and sleeps."""
    fifo = workspace / "started"
    os.mkfifo(fifo)
    sleeper = workflow("sleepy", {"nap": f"echo $$ > {fifo}; exec sleep 600"})

    async def start() -> tuple[str, int]:
        run_id = host.host.workflows.start(sleeper, {}, workspace)
        return run_id, int(await first_line(fifo))

    run_id, pid = host.call(start())
    return run_id, psutil.Process(pid)


def test_each_node_runs_after_the_one_it_needs_with_its_output(running_host: InProcessHost, tmp_path: Path) -> None:
    chain = workflow(
        "chain",
        {"greet": "echo hello", "join": "echo {{nodes.greet.output}}-there", "shout": "echo {{nodes.join.output}}!"},
        ("greet", "join"),
        ("join", "shout"),
    )

    run = run_to_its_end(running_host, chain, tmp_path)

    assert run["status"] == "completed"
    assert {node_id: node["output"] for node_id, node in run["nodes"].items()} == {
        "greet": "hello",
        "join": "hello-there",
        "shout": "hello-there!",
    }


def test_a_failed_node_skips_what_needs_it_and_fails_the_run(running_host: InProcessHost, tmp_path: Path) -> None:
    broken = workflow("broken", {"first": "exit 4", "second": "echo never", "aside": "echo fine"}, ("first", "second"))

    run = run_to_its_end(running_host, broken, tmp_path)

    states = {node_id: node["state"] for node_id, node in run["nodes"].items()}
    assert (run["status"], states) == ("failed", {"first": "failed", "second": "skipped", "aside": "completed"})
    assert run["nodes"]["first"]["exit_code"] == 4


def test_stopping_a_run_ends_its_running_node(running_host: InProcessHost, tmp_path: Path) -> None:
    run_id, node_process = started_with_a_sleeping_node(running_host, tmp_path)

    running_host.call(running_host.host.workflows.stop(run_id))

    run = running_host.host.workflows.describe(run_id)
    assert_wired_unchanged("workflow.stop", {"run": run})
    assert (run["status"], run["nodes"]["nap"]["state"]) == ("stopped", "stopped")
    assert not node_process.is_running()


def test_a_host_that_stops_leaves_its_running_runs_interrupted(running_host: InProcessHost, tmp_path: Path) -> None:
    run_id, node_process = started_with_a_sleeping_node(running_host, tmp_path)

    running_host.close()

    run = read_state(running_host.host.home, lambda conn: run_rows.get_run(conn, run_id))
    assert run is not None and (run["status"], run["nodes"]["nap"]["state"]) == ("interrupted", "stopped")
    assert not node_process.is_running()
