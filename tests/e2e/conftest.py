"""End-to-end fixtures: a real host per test, reaped afterwards however the test ended."""

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wardian_host.testing.reaping import reap_home


@pytest.fixture(autouse=True)
def reaped_home(wardian_home: Path) -> Iterator[None]:
    yield
    reap_home(wardian_home)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def generic_spawn_args(workspace: Path) -> Callable[..., list[str]]:
    """The `wardian` arguments spawning generic agent `name` in the workspace; `options` end
    with `--` and the command."""

    def arguments(name: str, *options: str, cls: str = "Coder") -> list[str]:
        identity = ["--class", cls, "--name", name, "--workspace", str(workspace)]
        return ["agent", "spawn", "--provider", "generic", *identity, *options]

    return arguments


@pytest.fixture
def spawn(run_wardian, generic_spawn_args: Callable[..., list[str]]) -> Callable[..., dict]:
    """Spawn a generic agent running `command` and return its record."""

    def spawn_agent(name: str, *command: str, cls: str = "Coder") -> dict:
        result = run_wardian(*generic_spawn_args(name, "--", *command, cls=cls))
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["agent"]

    return spawn_agent


@pytest.fixture
def wait_status(run_wardian) -> Callable[..., dict]:
    def wait(name: str, status: str, timeout: str = "20s") -> dict:
        result = run_wardian("agent", "wait", name, "--until", status, "--timeout", timeout)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["agent"]

    return wait


@pytest.fixture
def show(run_wardian) -> Callable[..., dict]:
    def show_agent(
        name: str, fields: str = "name,status,status_source,status_evidence,pid,provider_session_id"
    ) -> dict:
        result = run_wardian("agent", name, "--fields", fields)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["agent"]

    return show_agent
