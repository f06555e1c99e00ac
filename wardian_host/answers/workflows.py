"""What the workflow reads answer (and their MCP tools): the workflows under `<home>/workflows/`
(`workflow list`, `workflow show`) and a run of one (`workflow show --run`); a run started is
`workflow_runs`.

Reads ask the host first and fall back to the files when no host runs, so they work either way
and say which answered (`source`). pydantic is imported inside the answers: `wardian --version`
and the other nouns never pay for it.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError

# Errors that mean "no host to ask": the files answer instead. `not_supported` is a host of
# an older Wardian that predates these request kinds.
NO_HOST_ANSWER = ("app_not_running", "control_endpoint_timeout", "not_supported")


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


def workflows_answer() -> dict[str, Any]:
    """What `workflow list` prints (and the MCP tool `list_workflows` answers)."""
    from wardian_core.workflows import files

    return _live_or_files("workflow.list", {}, lambda home: {"workflows": files.list_workflows(home)})


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
