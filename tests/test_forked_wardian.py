"""The tests' forked `wardian` (tests/support/forked_wardian.py) answers as the installed command
does, in a process of its own with the test's arguments, environment, working directory, umask
and standard streams."""

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from forked_wardian import ForkServer
from wardian_cli import WARDIAN

WORKFLOW = {"id": "hello", "nodes": [{"id": "say", "kind": "shell", "command": "echo hi"}], "edges": []}


@pytest.fixture
def forks(forked_wardian: ForkServer) -> ForkServer:
    return forked_wardian


def _installed(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [WARDIAN, *args], capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL, timeout=60
    )


@pytest.mark.parametrize(
    "args",
    [
        ["agent", "list"],
        ["agent", "nobody"],
        ["agent", "list", "--bogus"],
        ["--version"],
        ["workflow", "validate", "x"],
    ],
    ids=["list", "unknown-agent", "bad-flag", "version", "missing-file"],
)
def test_a_forked_command_answers_as_the_installed_one(
    forks: ForkServer, wardian_home: Path, tmp_path: Path, args: list[str]
) -> None:
    env = dict(os.environ)
    forked = forks.run(args, env, tmp_path, 60, None)
    installed = _installed(args, env, tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        installed.returncode,
        installed.stdout,
        installed.stderr,
    )


@pytest.fixture
def blocked_validation(forks: ForkServer, tmp_path: Path) -> Iterator[tuple[threading.Thread, dict, Path]]:
    """`wardian workflow validate flow.json` with flow.json a FIFO no one writes yet: the command
    waits in its open, long enough to be looked at."""
    (tmp_path / "flow.json").unlink(missing_ok=True)
    os.mkfifo(tmp_path / "flow.json")
    done: dict = {}
    env = dict(os.environ)
    previous = os.umask(0o027)
    try:
        thread = threading.Thread(
            target=lambda: done.update(result=forks.run(["workflow", "validate", "flow.json"], env, tmp_path, 60, None))
        )
        thread.start()
    finally:
        os.umask(previous)
    yield thread, done, tmp_path
    if thread.is_alive():  # the test failed before it wrote: its command goes with it
        for child in psutil.Process(forks.pid).children():
            child.kill()
    thread.join(60)


def test_the_fork_runs_in_the_tests_folder_and_umask(
    forks: ForkServer, blocked_validation: tuple[threading.Thread, dict, Path]
) -> None:
    thread, done, folder = blocked_validation
    # Opening the FIFO returns once the command opened it to read (an event): it is forked by then.
    with (folder / "flow.json").open("w") as flow:
        [child] = psutil.Process(forks.pid).children()
        assert child.cwd() == str(folder)
        status = Path(f"/proc/{child.pid}/status").read_text().splitlines()
        umask = next(line for line in status if line.startswith("Umask"))
        assert umask.split()[1] == "0027"
        flow.write(json.dumps(WORKFLOW))  # the command reads it: a relative path, from its folder
    thread.join(60)
    result = done["result"]
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["valid"] is True


def test_standard_input_reaches_the_command_and_a_timeout_kills_it(forks: ForkServer, tmp_path: Path) -> None:
    flow = tmp_path / "flow.json"
    flow.write_text(json.dumps(WORKFLOW))
    read = forks.run(["workflow", "validate", "/dev/stdin"], dict(os.environ), tmp_path, 60, json.dumps(WORKFLOW))
    assert read.returncode == 0 and json.loads(read.stdout)["valid"] is True, read.stderr
    os.mkfifo(tmp_path / "never.json")
    with pytest.raises(subprocess.TimeoutExpired):
        forks.run(["workflow", "validate", "never.json"], dict(os.environ), tmp_path, 0.5, None)
    _, alive = psutil.wait_procs(psutil.Process(forks.pid).children(), timeout=30)
    assert alive == []  # killed, and reaped by the server


def test_each_fork_reads_the_environment_it_was_given(forks: ForkServer, tmp_path: Path) -> None:
    """Its own home, from its own WARDIAN_HOME (/proc/PID/environ keeps the server's: what is
    read there or only at an interpreter's start, forked_wardian leaves to the installed
    command)."""
    key = "providers.claude.executable"
    env = {name: dict(os.environ) | {"WARDIAN_HOME": str(tmp_path / name)} for name in ("first", "second")}
    for name, home_env in env.items():
        assert forks.run(["settings", "set", key, f"/opt/{name}/claude"], home_env, tmp_path, 60, None).returncode == 0
    read = {name: forks.run(["settings", "get", key], home_env, tmp_path, 60, None) for name, home_env in env.items()}
    values = {name: json.loads(result.stdout)["value"] for name, result in read.items()}
    assert values == {"first": "/opt/first/claude", "second": "/opt/second/claude"}
