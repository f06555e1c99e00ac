"""`wardian workflow`: the workflows under `<home>/workflows/` (list, show, validate, schema);
`run`, `runs`, `stop` and `approve` live in `workflow_run`.

Reads ask the host first and fall back to the files when no host runs, so `list` and `show`
work either way and say which answered (`source`). pydantic is imported inside the commands:
`wardian --version` and the other nouns never pay for it.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_host.cli.lazy_group import LazyGroup
from wardian_host.cli.render import write_json

RUN_COMMANDS = {
    "run": "wardian_host.cli.workflow_run:run",
    "runs": "wardian_host.cli.workflow_run:runs",
    "stop": "wardian_host.cli.workflow_run:stop",
    "approve": "wardian_host.cli.workflow_run:approve",
}
# Errors that mean "no host to ask": the files answer instead. `not_supported` is a host of
# an older Wardian that predates these request kinds.
NO_HOST_ANSWER = ("app_not_running", "control_endpoint_timeout", "not_supported")


@click.group(cls=LazyGroup, lazy_commands=RUN_COMMANDS)
def workflow() -> None:
    """Workflows: graphs of agent, shell and approval nodes, one JSON file each under
    <home>/workflows/ (docs/workflows.md)."""


def _ask_host(home: Path, kind: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The host's answer, or None when no host answers (in time)."""
    from wardian_core.control import endpoint

    if not endpoint.socket_path(home).exists():
        return None  # no host: skip the connect entirely
    from wardian_core.control.client import ControlClient
    from wardian_core.roster import read_deadline

    deadline = read_deadline()
    try:
        with ControlClient.connect(home, timeout=deadline) as client:
            answer: dict[str, Any] = client.request(kind, params, deadline)
            return answer
    except WardianError as error:
        if error.code in NO_HOST_ANSWER:
            return None
        raise


def _live_or_files(kind: str, params: dict[str, Any], from_files: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    home = paths.wardian_home()
    answer = _ask_host(home, kind, params)
    source = "live" if answer is not None else "files"
    if answer is None:
        answer = from_files(home)
    return {"schema": SCHEMA_VERSION} | answer | {"source": source}


@workflow.command("list")
def list_workflows() -> None:
    """Every workflow file: id, name, description, node count; an invalid one with its error."""
    write_json(workflows_answer())


def workflows_answer() -> dict[str, Any]:
    """What `workflow list` prints (and the MCP tool `list_workflows` answers)."""
    from wardian_core.workflows import files

    return _live_or_files("workflow.list", {}, lambda home: {"workflows": files.list_workflows(home)})


@workflow.command("show")
@click.argument("workflow_id", metavar="WORKFLOW-ID")
@click.option("--run", "run_id", metavar="RUN-ID", help="Show this run of the workflow instead, with its event log.")
def show(workflow_id: str, run_id: str | None) -> None:
    """The whole definition of WORKFLOW-ID (nodes, edges, role mappings), or one of its runs."""
    write_json(workflow_answer(workflow_id, run_id))


def workflow_answer(workflow_id: str, run_id: str | None = None) -> dict[str, Any]:
    """What `workflow show` prints (and the MCP tools `show_workflow` and `workflow_run_status` answer)."""
    if run_id is not None:
        return {"schema": SCHEMA_VERSION, "run": _run(workflow_id, run_id)}
    from wardian_core.workflows import files

    return _live_or_files(
        "workflow.show", {"workflow_id": workflow_id}, lambda home: files.show_workflow(home, workflow_id)
    )


def _run(workflow_id: str, run_id: str) -> dict[str, Any]:
    """The run with its nodes' states and its event log, from state.db."""
    from wardian_core.db.connection import reading
    from wardian_core.db.workflow_runs import get_run

    home = paths.wardian_home()
    found = None
    if paths.state_db(home).is_file():  # no state.db: no run was ever started here
        with reading(home) as conn:
            found = get_run(conn, run_id, with_events=True)
    if found is None or found["workflow_id"] != workflow_id:
        of_another = f" (it is a run of {found['workflow_id']})" if found else ""
        raise WardianError(
            "not_found",
            f"workflow {workflow_id} has no run {run_id}{of_another}",
            f"See its runs with `wardian workflow runs --id {workflow_id}`.",
            {"workflow_id": workflow_id, "run_id": run_id},
        )
    return found


@workflow.command("validate")
@click.argument("file", metavar="FILE")
def validate(file: str) -> None:
    """Check FILE as a workflow: every error at once (exit 1, validation_failed); nothing runs."""
    from wardian_core.workflows import files

    path = Path(file)
    checked, errors = files.check_file(paths.wardian_home(), path)
    if checked is None:
        raise files.invalid(path, errors)
    write_json({"schema": SCHEMA_VERSION, "valid": True, "workflow": {"id": checked.id, "nodes": len(checked.nodes)}})


@workflow.command("schema")
def schema() -> None:
    """The JSON Schema of a workflow file (for editors and generators)."""
    from wardian_core.workflows.model import workflow_schema

    write_json({"$schema": "https://json-schema.org/draft/2020-12/schema"} | workflow_schema())
