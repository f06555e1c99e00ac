"""`wardian workflow run|runs|stop|approve`: running workflows in the host, and their runs."""

import click

from wardian_core import paths
from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.connection import lifecycle_timeout
from wardian_host.answers.workflow_runs import run_request, started_run
from wardian_host.cli.live import ensure_host, request
from wardian_host.cli.render import write_json


@click.command("run")
@click.argument("workflow_id", metavar="WORKFLOW-ID")
@click.option("--input", "inputs", multiple=True, metavar="NAME=VALUE", help="A workflow input (repeatable).")
@click.option("--wait", is_flag=True, help="Return when the run has ended, with its result.")
@click.option("--timeout", "timeout_text", metavar="DUR", help="With --wait: give up waiting after DUR.")
@click.option("--workspace", type=click.Path(file_okay=False), help="Where nodes run (default: here).")
def run(workflow_id: str, inputs: tuple[str, ...], wait: bool, timeout_text: str | None, workspace: str | None) -> None:
    """Start a run of WORKFLOW-ID; its run id comes back at once unless --wait."""
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    params = run_request(workflow_id, inputs, workspace, wait, timeout)
    ensure_host()  # only the CLI starts a host: an MCP tool is answered inside one
    write_json(started_run(params))


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
