"""Lifecycle operations that meet on one agent, or on a stopping host, through the real `wardian`.

The agent under test ignores SIGTERM and says when it gets the hang-up a stop starts with,
through a FIFO the test reads: so the test knows a delete (or a host stop) holds the agent
and is ending it, and sends the second command then, with no sleep deciding the order.
"""

import os
import select
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from living_processes import carrying, living_with

WARDIAN = str(Path(sys.executable).parent / "wardian")
# Hangs up in a FIFO when its group gets SIGHUP; SIGTERM is ignored, so only the SIGKILL
# after the stop's grace period ends it, and a second command is queued meanwhile. Its prompt,
# once its traps are set, makes it idle (PROMPT): no quiet time waited, none mistaken for ready.
STUBBORN = "trap 'echo hup > hung-up' HUP; trap '' TERM; printf 'up> '; while :; do sleep 600 & wait $!; done"
PROMPT = ["--provider-setting", "prompt_pattern=^up> $"]


@pytest.fixture
def stubborn(run_wardian, generic_spawn_args, wait_status, show, workspace: Path) -> Callable[[str], dict]:
    """Spawn a STUBBORN agent named `name`, idle, and return its record."""
    os.mkfifo(workspace / "hung-up")

    def start(name: str) -> dict:
        spawned = run_wardian(*generic_spawn_args(name, *PROMPT, "--", "bash", "-c", STUBBORN))
        assert spawned.returncode == 0, spawned.stderr
        agent: dict = spawned.json()["agent"]
        wait_status(name, "idle")
        assert show(name)["status_evidence"]["rule"] == "prompt_pattern ^up> $"  # its traps are set
        return agent

    return start


def _await_hang_up(workspace: Path, timeout: float = 60) -> None:
    """Return once the stubborn agent got its SIGHUP: someone holds it and is ending it."""
    fifo = os.open(workspace / "hung-up", os.O_RDONLY | os.O_NONBLOCK)
    try:
        # Linux reports a FIFO readable only once a writer came: no writer yet is not EOF.
        readable, _, _ = select.select([fifo], [], [], timeout)
        assert readable, "the agent was never hung up"
        assert os.read(fifo, 64) == b"hup\n"
    finally:
        os.close(fifo)


@pytest.fixture
def background() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start `wardian *args` without waiting for it; each is waited for when the test ends."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        command = subprocess.Popen(
            [WARDIAN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
        )
        started.append(command)
        return command

    yield start
    for command in started:
        command.communicate(timeout=120)


def test_a_restart_queued_behind_a_forced_delete_is_not_found_and_launches_nothing(
    stubborn, background, run_wardian, workspace: Path
) -> None:
    agent = stubborn("v")
    deleting = background("agent", "delete", "v", "--confirm", "v", "--force")
    _await_hang_up(workspace)
    restarted = run_wardian("agent", "restart", "v")
    assert restarted.returncode == 2, restarted.stdout
    assert restarted.error()["code"] == "not_found"
    _out, err = deleting.communicate(timeout=60)
    assert deleting.returncode == 0, err
    assert run_wardian("agent", "list", "--fields", "name").json()["agents"] == []
    assert carrying(agent["uuid"]) == [], "no process of the deleted agent was launched again"


def test_a_rename_queued_behind_a_delete_is_not_found(stubborn, background, run_wardian, workspace: Path) -> None:
    stubborn("v")
    deleting = background("agent", "delete", "v", "--confirm", "v", "--force")
    _await_hang_up(workspace)
    # Queued behind the delete's 5 s grace: the CLI's 10 s wait was once too short under load.
    renamed = run_wardian("agent", "rename", "v", "w", env={"WARDIAN_CONTROL_TIMEOUT": "60"})
    assert renamed.returncode == 2, renamed.stdout
    assert renamed.error()["code"] == "not_found"
    deleting.communicate(timeout=60)
    assert deleting.returncode == 0
    assert run_wardian("agent", "list", "--fields", "name").json()["agents"] == []


def test_a_stopping_host_refuses_a_spawn_and_leaves_nothing_running(
    stubborn, background, run_wardian, generic_spawn_args, workspace: Path, wardian_home: Path
) -> None:
    stubborn("v")
    stopping = background("host", "stop")
    _await_hang_up(workspace)  # the host is ending its agents
    late = run_wardian(*generic_spawn_args("late", "--", "sleep", "600"))
    assert late.returncode == 6, late.stdout
    error = late.error()
    assert error["code"] == "host_stopping" and "host stop" in error["hint"]
    stopping.communicate(timeout=60)
    assert stopping.returncode == 0
    listed = run_wardian("agent", "list", "--fields", "name,status").json()["agents"]
    assert listed == [{"name": "v", "status": "off"}], "the refused spawn left no row"
    assert living_with("WARDIAN_HOME", str(wardian_home)) == [], "nothing of the home outlived the host"
