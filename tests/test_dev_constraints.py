"""The development environment installs the versions the last green run used (`dev.py lock`)."""

import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]


def _pinned(path: Path) -> dict[str, str]:
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return {canonicalize_name(name): version for name, version in (line.split("==") for line in lines)}


def _installed_extras(groups: dict[str, list[str]], extra: str) -> list[str]:
    """The lines of `extra` and of each of Wardian's own extras it names (`wardian[notify]`)."""
    lines = []
    for line in groups[extra]:
        requirement = Requirement(line)
        if requirement.name == "wardian":
            lines += [inner for named in sorted(requirement.extras) for inner in _installed_extras(groups, named)]
        else:
            lines.append(line)
    return lines


def _installed_dependencies() -> set[str]:
    """What the set-up installs on this platform: Wardian with its `test` extra, each provider."""
    lines: list[str] = []
    for pyproject in [ROOT / "pyproject.toml", *ROOT.glob("providers/*/pyproject.toml")]:
        project = tomllib.loads(pyproject.read_text())["project"]
        lines += project.get("dependencies", [])
        if pyproject.parent == ROOT:
            lines += _installed_extras(project["optional-dependencies"], "test")
    requirements = [Requirement(line) for line in lines]
    chosen: set[str] = {canonicalize_name(r.name) for r in requirements if r.marker is None or r.marker.evaluate()}
    return chosen - {"wardian"}  # the packages of this repository install editable, from here


def test_every_dependency_the_repository_names_is_pinned() -> None:
    pinned = _pinned(load_script("dev").CONSTRAINTS)
    missing = _installed_dependencies() - set(pinned)
    assert not missing, f"not in scripts/dev-constraints.txt: {sorted(missing)}; run `python3 scripts/dev.py lock`"


def test_the_set_up_installs_under_the_constraints(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = load_script("dev")
    ran: list[list[str]] = []

    def run(*argv: object, **_: object) -> int:
        ran.append([str(arg) for arg in argv])
        return 0

    monkeypatch.setattr(dev, "run", run)
    dev.set_up()
    (install,) = ran
    assert install[install.index("-c") + 1] == str(ROOT / "scripts" / "dev-constraints.txt")


def test_lock_records_what_the_venv_holds_without_wardians_packages_or_pip(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dev = load_script("dev")
    frozen = "\n".join(["pip==26.1", "TomlKit==0.15.3", "wardian-claude==0.1.0", "# Editable install", "click==8.5.1"])
    (tmp_path / "scripts").mkdir()
    monkeypatch.setattr(dev, "CONSTRAINTS", tmp_path / "scripts" / "dev-constraints.txt")
    monkeypatch.setattr(dev, "PYTHON", Path(__file__))  # exists: there is a .venv to read
    answered = subprocess.CompletedProcess([], 0, stdout=frozen, stderr="")
    monkeypatch.setattr(dev.subprocess, "run", lambda *_, **__: answered)
    assert dev.lock() == 0
    written = tmp_path / "scripts" / "dev-constraints.txt"
    assert _pinned(written) == {"click": "8.5.1", "tomlkit": "0.15.3"}
    assert written.read_text().startswith("# The versions")
    assert list(written.parent.iterdir()) == [written], "no half-written file left"


def test_lock_without_a_venv_says_how_to_make_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = load_script("dev")
    monkeypatch.setattr(dev, "CONSTRAINTS", tmp_path / "dev-constraints.txt")
    monkeypatch.setattr(dev, "PYTHON", tmp_path / "absent" / "python")
    assert dev.lock() == 1
    assert "dev.py check" in capsys.readouterr().err and not (tmp_path / "dev-constraints.txt").exists()
