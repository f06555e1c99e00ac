"""The workflows under `<home>/workflows/`: one `<id>.json` per workflow, listed and loaded.

The CLI reads them when no host runs and the host answers `workflow.list` / `workflow.show`
with the same functions, so the two cannot disagree. A file that cannot be read or is not a
valid workflow is listed with its error, never skipped and never a crash.
"""

import json
import re
from pathlib import Path
from typing import Any

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_core.workflows.model import ID_PATTERN, Workflow
from wardian_core.workflows.validation import problem, validate_workflow

SUFFIX = ".json"


def workflow_files(home: Path) -> list[Path]:
    directory = paths.workflows_dir(home)
    return sorted(directory.glob(f"*{SUFFIX}")) if directory.is_dir() else []


def read_text(path: Path) -> str:
    """The file's text; one that cannot be read is `not_found` saying why."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise WardianError(
            "not_found",
            f"cannot read workflow file {path}: {reason}",
            "Check the path and the file's permissions; a workflow file is UTF-8 JSON.",
            {"file": str(path)},
        ) from None


def parse_json(text: str) -> tuple[object, list[dict[str, Any]]]:
    """The JSON value, or an `invalid_json` error naming the line and column."""
    try:
        return json.loads(text), []
    except json.JSONDecodeError as exc:
        message = f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        return None, [problem(None, None, "invalid_json", message) | {"line": exc.lineno, "column": exc.colno}]


def check_file(home: Path, path: Path) -> tuple[Workflow | None, list[dict[str, Any]]]:
    """The workflow in `path` and every error it has; a file under the home's workflows
    directory must also be named after its id (that is how `show` and `run` find it)."""
    raw, errors = parse_json(read_text(path))
    if errors:
        return None, errors
    workflow, errors = validate_workflow(raw)
    declared = raw.get("id") if isinstance(raw, dict) else None
    if _in_workflows_dir(home, path) and isinstance(declared, str) and declared != path.stem:
        message = f"the file is named {path.name} but holds workflow {declared!r}: rename one so they match"
        return None, [*errors, problem(None, "id", "id_mismatch", message)]
    return workflow, errors


def _in_workflows_dir(home: Path, path: Path) -> bool:
    return path.resolve().parent == paths.workflows_dir(home).resolve()


def list_workflows(home: Path) -> list[dict[str, Any]]:
    """A summary of every workflow file, sorted by file name; an invalid one carries `error`."""
    return [_summary(home, path) for path in workflow_files(home)]


def _summary(home: Path, path: Path) -> dict[str, Any]:
    try:
        workflow, errors = check_file(home, path)
    except WardianError as error:
        errors, workflow = [problem(None, None, "unreadable", error.message)], None
    if workflow is None:
        return {"id": path.stem, "file": str(path), "error": _file_error(path, errors)}
    return {
        "id": workflow.id,
        "name": workflow.name,
        "description": workflow.description,
        "nodes": len(workflow.nodes),
        "file": str(path),
    }


def _file_error(path: Path, errors: list[dict[str, Any]]) -> dict[str, Any]:
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return {
        "message": f"{errors[0]['message']}{more}",
        "hint": f"See every error with `wardian workflow validate {path}`.",
        "errors": errors,
    }


def workflow_file(home: Path, workflow_id: str) -> Path:
    return paths.workflows_dir(home) / f"{workflow_id}{SUFFIX}"


def load_workflow(home: Path, workflow_id: str) -> Workflow:
    """The valid workflow `workflow_id`: `not_found` (the hint lists the ids), or
    `validation_failed` with every error in details.errors."""
    path = workflow_file(home, workflow_id)
    # An id is a file name: one outside the id pattern ("../x") must not reach another file.
    if not re.fullmatch(ID_PATTERN, workflow_id) or not path.is_file():
        raise _unknown(home, workflow_id)
    workflow, errors = check_file(home, path)
    if workflow is None:
        raise invalid(path, errors)
    return workflow


def show_workflow(home: Path, workflow_id: str) -> dict[str, Any]:
    """What `workflow show` answers, from the host or from the files: the whole definition."""
    workflow = load_workflow(home, workflow_id)
    return {"workflow": definition(workflow), "file": str(workflow_file(home, workflow_id))}


def invalid(path: Path | str, errors: list[dict[str, Any]]) -> WardianError:
    count = f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
    return WardianError(
        "validation_failed",
        f"{path} is not a valid workflow: {count}, the first: {errors[0]['message']}",
        "Fix every error listed in details.errors (docs/workflows.md explains each `problem`), then "
        "check the file again with `wardian workflow validate FILE`.",
        {"file": str(path), "errors": errors},
    )


def _unknown(home: Path, workflow_id: str) -> WardianError:
    directory = paths.workflows_dir(home)
    ids = [path.stem for path in workflow_files(home)]
    hint = (
        f"Known workflows: {', '.join(ids)} (`wardian workflow list`)."
        if ids
        else f"There are no workflows yet: add one as {directory}/<id>.json (`wardian workflow schema` "
        "prints the format, docs/workflows.md shows an example)."
    )
    return WardianError(
        "not_found", f"no workflow {workflow_id!r} in {directory}", hint, {"id": workflow_id, "known": ids}
    )


def definition(workflow: Workflow) -> dict[str, Any]:
    """The whole definition as a file would hold it, defaults filled in."""
    return workflow.model_dump(mode="json", by_alias=True, exclude_none=True)
