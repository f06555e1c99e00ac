"""`wardian workflow`: the workflows under `<home>/workflows/` (list, show, validate, schema);
`run`, `runs`, `stop` and `approve` live in `workflow_run`.

`list` and `show` print what `wardian_host.answers.workflows` answers: the host's, or the files'
when no host runs. pydantic is imported inside the commands: `wardian --version` and the other
nouns never pay for it.
"""

from pathlib import Path

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.workflows import workflow_answer, workflows_answer
from wardian_host.cli.lazy_group import LazyGroup
from wardian_host.cli.render import write_json

RUN_COMMANDS = {
    "run": "wardian_host.cli.workflow_run:run",
    "runs": "wardian_host.cli.workflow_run:runs",
    "stop": "wardian_host.cli.workflow_run:stop",
    "approve": "wardian_host.cli.workflow_run:approve",
}


@click.group(cls=LazyGroup, lazy_commands=RUN_COMMANDS)
def workflow() -> None:
    """Workflows: graphs of agent, shell and approval nodes, one JSON file each under
    <home>/workflows/ (docs/workflows.md)."""


@workflow.command("list")
def list_workflows() -> None:
    """Every workflow file: id, name, description, node count; an invalid one with its error."""
    write_json(workflows_answer())


@workflow.command("show")
@click.argument("workflow_id", metavar="WORKFLOW-ID")
@click.option("--run", "run_id", metavar="RUN-ID", help="Show this run of the workflow instead, with its event log.")
def show(workflow_id: str, run_id: str | None) -> None:
    """The whole definition of WORKFLOW-ID (nodes, edges, role mappings), or one of its runs."""
    write_json(workflow_answer(workflow_id, run_id))


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
