"""The workflows under `<home>/workflows/`: one `<id>.json` per workflow, listed and loaded.

The CLI reads them when no host runs and the host answers `workflow.list` / `workflow.show`
with the same functions, so the two cannot disagree. A file that cannot be read or is not a
valid workflow is listed with its error, never skipped and never a crash. A file is read up
to MAX_FILE_BYTES and checked to MAX_DEPTH levels, so no file can cost the host more than
that, nor raise RecursionError for the other files of a listing.
"""

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_core.nesting import deeper_than
from wardian_core.workflows.model import ID_PATTERN, Workflow
from wardian_core.workflows.validation import problem, validate_workflow

SUFFIX = ".json"
# A definition of MAX_NODES nodes with long prompts fits several times over.
MAX_FILE_BYTES = 8 * 1024 * 1024
# The deepest a definition goes is an output_schema (a JSON Schema, a few levels); every
# reader recurses per level, and a file ~1000 deep raised RecursionError in json.loads.
MAX_DEPTH = 64

Checked = tuple[Workflow | None, list[dict[str, Any]]]


def workflow_files(home: Path) -> list[Path]:
    directory = paths.workflows_dir(home)
    return sorted(directory.glob(f"*{SUFFIX}")) if directory.is_dir() else []


def read_text(path: Path) -> str | None:
    """The file's text, None when it is over MAX_FILE_BYTES; one that cannot be read is
    `not_found` saying why."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
        return data.decode("utf-8") if len(data) <= MAX_FILE_BYTES else None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise WardianError(
            "not_found",
            f"cannot read workflow file {path}: {reason}",
            "Check the path and the file's permissions; a workflow file is UTF-8 JSON.",
            {"file": str(path)},
        ) from None


def parse_json(text: str | None) -> tuple[object, list[dict[str, Any]]]:
    """The JSON value, or the error that stopped it: `too_large` (no text: over
    MAX_FILE_BYTES), `invalid_json` naming the line and column, or `too_deep`."""
    if text is None:
        message = f"the file is larger than {MAX_FILE_BYTES} bytes, the most a workflow file may hold"
        return None, [problem(None, None, "too_large", message)]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        return None, [problem(None, None, "invalid_json", message) | {"line": exc.lineno, "column": exc.colno}]
    except RecursionError:
        value = None  # deeper than json can read, so deeper than MAX_DEPTH too
    where = deeper_than(value, MAX_DEPTH) if value is not None else "the top"
    if where is None:
        return value, []
    message = f"the file nests deeper than {MAX_DEPTH} levels (at {where}); a workflow never needs that"
    return None, [problem(None, None if where == "the top" else where, "too_deep", message)]


def check_file(home: Path, path: Path) -> Checked:
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
    return CheckedFiles(home).summaries()


class CheckedFiles:
    """`check_file`'s answers kept by each file's stamp (size, mtime, ctime, inode): the host
    answered every `workflow list` by validating every file again."""

    def __init__(self, home: Path) -> None:
        self._home = home
        self._kept: dict[Path, tuple[tuple[int, ...], Checked]] = {}
        # The host lists in worker threads: two at once must not change the dict under each other.
        self._listing = threading.Lock()

    def summaries(self) -> list[dict[str, Any]]:
        with self._listing:
            listed = workflow_files(self._home)
            present = set(listed)
            self._kept = {path: kept for path, kept in self._kept.items() if path in present}
            return [_summary(path, self.check(path)) for path in listed]

    def check(self, path: Path) -> Checked | WardianError:
        try:
            stamp = _stamp(path)
        except OSError:
            stamp = None  # read_text says why
        kept = self._kept.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            checked = check_file(self._home, path)
        except WardianError as error:
            return error
        if stamp is not None:  # taken before the read: a change meanwhile is seen next time
            self._kept[path] = (stamp, checked)
        return checked


def _stamp(path: Path) -> tuple[int, ...]:
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def _summary(path: Path, checked: Checked | WardianError) -> dict[str, Any]:
    if isinstance(checked, WardianError):
        workflow, errors = None, [problem(None, None, "unreadable", checked.message)]
    else:
        workflow, errors = checked
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
