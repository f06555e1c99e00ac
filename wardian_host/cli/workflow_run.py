"""`wardian workflow run|runs|stop|approve`: running workflows in the host, and their runs."""

import os
from typing import Any

import click

from wardian_core import paths
from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.connection import caller_cwd, from_caller
from wardian_host.cli.key_values import setting_pairs
from wardian_host.cli.live import after_waiting, lifecycle_timeout, request
from wardian_host.cli.render import write_json

# The CLI waits this much longer than a run's --timeout for the host's own answer.
ANSWER_ALLOWANCE_SECONDS = 30.0


@click.command("run")
@click.argument("workflow_id", metavar="WORKFLOW-ID")
@click.option("--input", "inputs", multiple=True, metavar="NAME=VALUE", help="A workflow input (repeatable).")
@click.option("--wait", is_flag=True, help="Return when the run has ended, with its result.")
@click.option("--timeout", "timeout_text", metavar="DUR", help="With --wait: give up waiting after DUR.")
@click.option("--workspace", type=click.Path(file_okay=False), help="Where nodes run (default: here).")
def run(workflow_id: str, inputs: tuple[str, ...], wait: bool, timeout_text: str | None, workspace: str | None) -> None:
    """Start a run of WORKFLOW-ID; its run id comes back at once unless --wait."""
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    write_json(run_answer(workflow_id, inputs, workspace, wait, timeout))


def run_answer(
    workflow_id: str, inputs: tuple[str, ...], workspace: str | None, wait: bool, timeout: float | None
) -> dict[str, Any]:
    """What `workflow run` prints (and the MCP tool `run_workflow` answers): the run, ended when waited for."""
    params = {
        "workflow_id": workflow_id,
        "inputs": setting_pairs(inputs, "--input"),
        "workspace": os.path.abspath(from_caller(workspace) if workspace else caller_cwd()),
        "wait": wait,
        "timeout": timeout,
    }
    waits_for_ever = wait and timeout is None
    answer: dict[str, Any] = request(
        "workflow.run",
        params,
        start_host=True,
        timeout=None if waits_for_ever else after_waiting(timeout or 0, ANSWER_ALLOWANCE_SECONDS),
    )
    return {"schema": SCHEMA_VERSION} | answer


@click.command("runs")
@click.option("--id", "workflow_id", metavar="WORKFLOW-ID", help="Only the runs of this workflow.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True, help="At most this many.")
def runs(workflow_id: str | None, limit: int) -> None:
    """Runs, newest first, each with its nodes' states (from state.db, with or without a host)."""
    from wardian_core.db.connection import reading
    from wardian_core.db.workflow_runs import list_runs

    with reading(paths.wardian_home()) as conn:
        found = list_runs(conn, workflow_id, limit)
    write_json({"schema": SCHEMA_VERSION, "runs": found})


@click.command("stop")
@click.argument("run_id", metavar="RUN-ID")
def stop(run_id: str) -> None:
    """Stop a run: running nodes' processes ended, pending nodes marked stopped."""
    write_json({"schema": SCHEMA_VERSION} | request("workflow.stop", {"run_id": run_id}, timeout=lifecycle_timeout()))


@click.command("approve")
@click.argument("run_id", metavar="RUN-ID")
@click.argument("node", metavar="NODE")
@click.option("--reject", is_flag=True, help="Refuse instead: the node fails and its dependants are skipped.")
def approve(run_id: str, node: str, reject: bool) -> None:
    """Let an approval node of a run go on."""
    answer = request("workflow.approve", {"run_id": run_id, "node": node, "approve": not reject})
    write_json({"schema": SCHEMA_VERSION} | answer)
