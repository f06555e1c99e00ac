"""Fixtures for the CLI's integration tests: seed a home through wardian_core, run `wardian`."""

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from forked_wardian import ForkServer

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_host.testing.in_process import InProcessHost, serving

WARDIAN = str(Path(sys.executable).parent / "wardian")


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def error(self) -> dict[str, Any]:
        assert self.stdout == "", f"stdout must be empty on error, got {self.stdout!r}"
        return json.loads(self.stderr)["error"]


@pytest.fixture(scope="session")
def forked_wardian() -> Iterator[ForkServer]:
    forks = ForkServer(WARDIAN)
    yield forks
    forks.close()


@pytest.fixture
def run_wardian(wardian_home: Path, forked_wardian: ForkServer) -> Callable[..., Result]:
    """Run `wardian` with the test's clean environment (plus `env`): the installed command,
    forked from a process that already started it (tests/support/forked_wardian.py)."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
        input: str | None = None,
    ) -> Result:
        """`input`: the command's standard input (none by default)."""
        completed = forked_wardian.run(list(args), {**os.environ, **(env or {})}, cwd, timeout, input)
        return Result(completed.returncode, completed.stdout, completed.stderr)

    return run


@pytest.fixture
def seed_agent(wardian_home: Path) -> Callable[..., dict[str, Any]]:
    """Create an agent through wardian_core, optionally with a status."""

    def seed(
        class_name: str = "Coder",
        *,
        name: str | None = None,
        provider: str = "generic",
        workspace: Path | str | None = None,
        status: str | None = None,
        pid: int | None = None,
        started_at: str | None = None,
    ) -> dict[str, Any]:
        conn = open_writer(wardian_home)
        try:
            created = identity.create_agent(
                conn, class_name=class_name, provider=provider, workspace=workspace, name=name
            )
            if status is not None:
                agent_rows.record_status(conn, created["uuid"], status, evidence={"source": "test-seed"})
            if pid is not None or started_at is not None:
                agent_rows.record_process(conn, created["uuid"], pid=pid, started_at=started_at)
            return agent_rows.get_agent(conn, created["uuid"]) or {}
        finally:
            conn.close()

    return seed


@pytest.fixture
def running_host(wardian_home: Path) -> Iterator[InProcessHost]:
    """The real host of the test's home, run in this process (wardian_host.testing.in_process);
    stopped with its agents at the end, and whatever outlived it reaped."""
    with serving(wardian_home) as host:
        yield host
