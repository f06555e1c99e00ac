"""`wardian providers new`: a provider package that works at once, written from the template
(`template/`, package data beside this module) with its name filled in."""

import os
import re
import shutil
import uuid
from importlib.metadata import entry_points
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import BaseModel

from wardian_core.errors import WardianError
from wardian_core.provider_models import CONTRACT_VERSION
from wardian_host.providers.manager import GROUP

# A provider name is also its entry point, its distribution's tail and (with `_`) its module.
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
NAME_MAX = 40
TEMPLATE_SUFFIX = ".tmpl"
MODULE_FOLDER = "__module__"


class NewProvider(BaseModel):
    """What `providers new` wrote."""

    name: str
    package: str
    module: str
    path: str
    files: list[str]
    next_steps: list[str]


def _checked_name(name: str) -> str:
    if not NAME_PATTERN.match(name) or len(name) > NAME_MAX:
        suggestion = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-0123456789")[:NAME_MAX] or "mycli"
        raise WardianError(
            "invalid_name",
            f"{name!r} is not a provider name: lower-case letters and digits, words joined by `-`, "
            f"starting with a letter, at most {NAME_MAX} characters",
            f"Try `wardian providers new {suggestion}`.",
            {"name": name, "suggestion": suggestion},
        )
    installed = {point.name: point.value for point in entry_points(group=GROUP)}
    if name in installed:
        raise WardianError(
            "duplicate_name",
            f"a provider named {name!r} is installed already ({installed[name]})",
            f"Choose another name; `wardian providers show {name}` says which package provides it.",
            {"name": name, "entry_point": installed[name]},
        )
    return name


def _checked_target(target: Path) -> Path:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise WardianError(
            "would_lose_work",
            f"{target} exists and is not an empty folder; nothing was written",
            "Name a new or empty folder with --dir.",
            {"path": str(target)},
        )
    return target


def _template_files(folder: Traversable, relative: Path = Path()) -> list[tuple[Path, str]]:
    found = []
    for entry in sorted(folder.iterdir(), key=lambda each: each.name):
        if entry.is_dir():
            found += _template_files(entry, relative / entry.name)
        elif entry.name.endswith(TEMPLATE_SUFFIX):
            found.append((relative / entry.name.removesuffix(TEMPLATE_SUFFIX), entry.read_text(encoding="utf-8")))
    return found


def _filled(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _write_failed(target: Path, error: OSError) -> WardianError:
    return WardianError(
        "write_failed",
        f"cannot write {target}: {error.strerror or error}; nothing was written",
        f"Make {target.parent} writable, or name another folder with --dir.",
        {"path": str(target)},
    )


def _write_template(folder: Path, values: dict[str, str]) -> list[str]:
    written = []
    for relative, text in _template_files(files("wardian_host.providers") / "template"):
        relative = Path(*(values["module"] if part == MODULE_FOLDER else part for part in relative.parts))
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(_filled(text, values), encoding="utf-8")
        written.append(relative.as_posix())
    return written


def write_provider_package(name: str, directory: Path | None) -> NewProvider:
    """Write the package of provider `name` into `directory` (default `./wardian-NAME`): whole,
    or not at all (it is written beside, then moved into place)."""
    name = _checked_name(name)
    package, module = f"wardian-{name}", f"wardian_{name.replace('-', '_')}"
    target = _checked_target((directory or Path(package)).absolute())
    values = {
        "name": name,
        "package": package,
        "module": module,
        "display_name": name.replace("-", " ").title(),
        "contract_version": str(CONTRACT_VERSION),
    }
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Made with the user's umask, as the package folder it becomes (mkdtemp's is private).
        scratch = target.parent / f".{package}-{uuid.uuid4().hex[:8]}"
        scratch.mkdir()
    except OSError as error:
        raise _write_failed(target, error) from error
    try:
        written = _write_template(scratch, values)
        if target.exists():
            target.rmdir()  # empty, as checked
        os.replace(scratch, target)
    except OSError as error:
        shutil.rmtree(scratch, ignore_errors=True)
        raise _write_failed(target, error) from error
    return NewProvider(
        name=name,
        package=package,
        module=module,
        path=str(target),
        files=written,
        next_steps=[f"pip install -e {target}", f"wardian providers check {name}", f"pytest {target}"],
    )
