"""Running the installed `wardian` from this package's tests (the root conftest gives each test
its own WARDIAN_HOME and HOME, and the real-CLI harness)."""

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

WARDIAN = str(Path(sys.executable).parent / "wardian")


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        assert self.returncode == 0, f"wardian failed ({self.returncode}): {self.stderr}"
        return json.loads(self.stdout)

    def lines(self) -> list[dict[str, Any]]:
        assert self.returncode == 0, f"wardian failed ({self.returncode}): {self.stderr}"
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


@pytest.fixture
def wardian(wardian_home: Path) -> Iterator[Callable[..., Result]]:
    """Run `wardian` with the test's environment plus `env`; stops the home's host afterwards.

    The home is taken when the fixture starts: the real-CLI fixtures drop every WARDIAN_*
    variable from the environment afterwards."""
    started_host = False

    def run(*args: str, env: dict[str, str] | None = None, timeout: float = 90) -> Result:
        nonlocal started_host
        started_host = started_host or args[:2] == ("agent", "spawn")
        environment = {**os.environ, "WARDIAN_HOME": str(wardian_home), **(env or {})}
        completed = subprocess.run(
            [WARDIAN, *args], capture_output=True, text=True, timeout=timeout, env=environment, stdin=subprocess.DEVNULL
        )
        return Result(completed.returncode, completed.stdout, completed.stderr)

    yield run
    if started_host:
        stop_host(run)


def stop_host(run: Callable[..., Result]) -> None:
    """`host stop` ends every agent gracefully; a host that does not answer is killed."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        run("host", "stop", timeout=30)
    pid_answer = run("host", "status", timeout=10)
    if pid_answer.returncode == 0:
        with contextlib.suppress(ProcessLookupError, KeyError, ValueError):
            os.kill(json.loads(pid_answer.stdout)["host"]["pid"], signal.SIGKILL)
