"""A pytest plugin that installs the test provider distributions as real packages.

`tests/example_provider` and `tests/broken_providers` are built into wheels and
installed with pip (`--no-deps --no-index --target`) into one session-wide directory;
a test that asks for `provider_packages` gets that directory on `sys.path` and on
`PYTHONPATH`, so both in-process loading and `wardian` subprocesses find them through
their entry points. Other tests never see them.

The wheels are built here, from each pyproject.toml's [project] table, because the
declared backend needs build tools (setuptools with bdist_wheel) a test run offline
may not have; what pip installs is an ordinary pure-Python wheel either way.

Test modules load this with:
    sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
    pytest_plugins = ["wardian_test_packages"]
"""

import base64
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = (TESTS / "example_provider", TESTS / "broken_providers")


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(source: Path, out: Path) -> Path:
    project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name = re.sub(r"[-_.]+", "_", project["name"])
    dist_info = f"{name}-{project['version']}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted(path for path in (source / "src").rglob("*") if path.suffix in {".py", ".toml"}):
        files[path.relative_to(source / "src").as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
        f"Summary: {project.get('description', '')}\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: wardian-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    entry_points = ""
    for group, points in project.get("entry-points", {}).items():
        entry_points += f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items()) + "\n"
    files[f"{dist_info}/entry_points.txt"] = entry_points.encode()
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files.items())
    files[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    wheel = out / f"{name}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


def install(wheels: list[Path], target: Path) -> None:
    if importlib.util.find_spec("pip") is None:
        # Environments built without pip (uv): a pure-Python wheel installs by unpacking.
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(target)
        return
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--no-compile",
            "--target",
            str(target),
            *map(str, wheels),
        ],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def provider_packages_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheels_dir = tmp_path_factory.mktemp("wheels")
    target = tmp_path_factory.mktemp("provider-packages")
    install([build_wheel(source, wheels_dir) for source in DISTRIBUTIONS], target)
    return target


@pytest.fixture
def provider_packages(provider_packages_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example and broken providers, installed and visible to this test only."""
    monkeypatch.syspath_prepend(str(provider_packages_dir))
    monkeypatch.setenv("PYTHONPATH", str(provider_packages_dir), prepend=os.pathsep)
    yield provider_packages_dir
