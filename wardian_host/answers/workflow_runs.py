"""What `workflow run` answers (and the MCP tool `run_workflow`): a run the host started, ended
when it was waited for."""

import os
from typing import Any

from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.connection import after_waiting, caller_cwd, from_caller, request
from wardian_host.answers.key_values import setting_pairs

# The CLI waits this much longer than a run's --timeout for the host's own answer.
ANSWER_ALLOWANCE_SECONDS = 30.0


def run_answer(
    workflow_id: str, inputs: tuple[str, ...], workspace: str | None, wait: bool, timeout: float | None
) -> dict[str, Any]:
    """What `workflow run` prints (and the MCP tool `run_workflow` answers): the run, ended when waited for."""
    return started_run(run_request(workflow_id, inputs, workspace, wait, timeout))


def run_request(
    workflow_id: str, inputs: tuple[str, ...], workspace: str | None, wait: bool, timeout: float | None
) -> dict[str, Any]:
    """The host's `workflow.run` parameters, every flag checked."""
    return {
        "workflow_id": workflow_id,
        "inputs": setting_pairs(inputs, "--input"),
        "workspace": os.path.abspath(from_caller(workspace) if workspace else caller_cwd()),
        "wait": wait,
        "timeout": timeout,
    }


def started_run(params: dict[str, Any]) -> dict[str, Any]:
    """The run the host started of `params` (`run_request`), ended when it was waited for."""
    timeout = params["timeout"]
    waits_for_ever = params["wait"] and timeout is None
    answering = None if waits_for_ever else after_waiting(timeout or 0, ANSWER_ALLOWANCE_SECONDS)
    answer: dict[str, Any] = request("workflow.run", params, timeout=answering)
    return {"schema": SCHEMA_VERSION} | answer
