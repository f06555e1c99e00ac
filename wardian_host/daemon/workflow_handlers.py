"""The control endpoint's workflow request kinds: run, stop, approve (reads go to state.db)."""

from pathlib import Path
from typing import Any

from wardian_core.errors import WardianError
from wardian_core.workflows.files import load_workflow
from wardian_host.daemon.control_server import Handler, RequestContext
from wardian_host.workflows.runner import WorkflowRunner


def build_workflow_handlers(home: Path, runner: WorkflowRunner) -> dict[str, Handler]:
    async def run(params: Any, _: RequestContext) -> dict[str, Any]:
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
        return {"run": runner.describe(run_id)}

    async def stop(params: Any, _: RequestContext) -> dict[str, Any]:
        runner.describe(params.run_id)  # not_found first
        await runner.stop(params.run_id)
        return {"run": runner.describe(params.run_id)}

    async def approve(params: Any, _: RequestContext) -> dict[str, Any]:
        runner.describe(params.run_id)
        await runner.approve(params.run_id, params.node, params.approve)
        return {"run": runner.describe(params.run_id)}

    return {"workflow.run": run, "workflow.stop": stop, "workflow.approve": approve}
