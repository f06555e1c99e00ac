"""The test command runs the checks first, over every package the issue names."""

from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]


def _dev_script() -> ModuleType:
    return load_script("dev")


def test_checks_are_ruff_lint_ruff_format_and_mypy() -> None:
    checks = _dev_script().checks()
    assert [argv[1:3] for argv in checks.values()][:2] == [["check", ROOT], ["format", "--check"]]
    assert Path(checks["ruff check"][0]).name == "ruff"
    assert Path(checks["mypy"][0]).name == "mypy"


def test_mypy_covers_core_host_and_every_provider_package() -> None:
    targets = {Path(p) for p in _dev_script().checks()["mypy"][1:]}
    providers = {init.parent for init in ROOT.glob("providers/*/src/*/__init__.py")}
    assert providers, "no provider package found"
    assert targets == {ROOT / "wardian_core", ROOT / "wardian_host", *providers}


def test_test_command_stops_before_pytest_when_a_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    ran: list[str] = []
    monkeypatch.setattr(dev, "set_up", lambda: ran.append("set_up"))
    monkeypatch.setattr(dev, "install_real_clis", lambda: ran.append("install"))
    monkeypatch.setattr(dev, "run_checks", lambda names=None: ran.append("checks") or 1)
    monkeypatch.setattr(dev, "run", lambda *argv, **_: ran.append("pytest") or 0)
    assert dev.test([]) == 1
    assert ran == ["set_up", "checks"]
