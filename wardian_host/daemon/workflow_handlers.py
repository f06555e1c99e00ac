"""The control endpoint's workflow request kinds: the files (list, show) and runs (run, stop,
approve); a run's state is read from state.db by the CLI itself."""

import asyncio
from pathlib import Path

from wardian_core.control.answers import WorkflowListAnswer, WorkflowRunAnswer, WorkflowShowAnswer
from wardian_core.control.models import (
    NoParams,
    WorkflowApproveParams,
    WorkflowIdParams,
    WorkflowRunParams,
    WorkflowRunRef,
)
from wardian_core.errors import WardianError
from wardian_core.workflows import files as workflow_files
from wardian_core.workflows.files import load_workflow
from wardian_host.daemon.control_server import RequestContext, Route, Routes
from wardian_host.workflows.runner import WorkflowRunner


def build_workflow_handlers(home: Path, runner: WorkflowRunner) -> Routes:
    # Files on disk: read off the event loop, so a slow disk does not stall the agents' output.
    checked_files = workflow_files.CheckedFiles(home)

    async def workflow_list(_: NoParams, __: RequestContext) -> WorkflowListAnswer:
        return WorkflowListAnswer.model_validate({"workflows": await asyncio.to_thread(checked_files.summaries)})

    async def workflow_show(params: WorkflowIdParams, _: RequestContext) -> WorkflowShowAnswer:
        shown = await asyncio.to_thread(workflow_files.show_workflow, home, params.workflow_id)
        return WorkflowShowAnswer.model_validate(shown)

    def described(run_id: str) -> WorkflowRunAnswer:
        return WorkflowRunAnswer.model_validate({"run": runner.describe(run_id)})

    async def run(params: WorkflowRunParams, _: RequestContext) -> WorkflowRunAnswer:
        workflow = load_workflow(home, params.workflow_id)
        run_id = runner.start(workflow, params.inputs, Path(params.workspace))
        if params.wait and not await runner.wait(run_id, params.timeout):
            raise WardianError(
                "wait_timeout",
                f"workflow run {run_id} did not end within {params.timeout:g} s",
                f"It goes on: follow it with `wardian workflow show {workflow.id} --run {run_id}`, "
                f"or end it with `wardian workflow stop {run_id}`.",
                {"run_id": run_id, "run": runner.describe(run_id)},
            )
        return described(run_id)

    async def stop(params: WorkflowRunRef, _: RequestContext) -> WorkflowRunAnswer:
        runner.describe(params.run_id)  # not_found first
        await runner.stop(params.run_id)
        return described(params.run_id)

    async def approve(params: WorkflowApproveParams, _: RequestContext) -> WorkflowRunAnswer:
        runner.describe(params.run_id)
        await runner.approve(params.run_id, params.node, params.approve)
        return described(params.run_id)

    return {
        "workflow.list": Route(NoParams, workflow_list),
        "workflow.show": Route(WorkflowIdParams, workflow_show),
        "workflow.run": Route(WorkflowRunParams, run),
        "workflow.stop": Route(WorkflowRunRef, stop),
        "workflow.approve": Route(WorkflowApproveParams, approve),
    }
