"""What an agent was in the middle of goes on across a host restart or a kill -9 of the host:
its telemetry followed on from where the old host stopped, its pending dialog still answerable —
through the real `wardian` command, the example provider and its stand-in CLI."""

import json
import os
import signal
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]


@pytest.fixture
def wardian(run_wardian: Callable[..., Any], example_cli_env: dict[str, str]) -> Callable[..., Any]:
    """`wardian ARGS` whose host, whichever command starts it, has the example provider."""

    def run(*args: str) -> Any:
        return run_wardian(*args, env=example_cli_env)

    return run


@pytest.fixture
def example_agent(wardian: Callable[..., Any], workspace: Path) -> Callable[[str], dict[str, Any]]:
    """Spawn an example agent and wait for its prompt; its record."""

    def spawn(name: str) -> dict[str, Any]:
        spawned = wardian(
            "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", name, "--workspace", str(workspace)
        )
        assert spawned.returncode == 0, spawned.stderr
        _wait(wardian, name, "idle")
        agent: dict[str, Any] = spawned.json()["agent"]
        return agent

    return spawn


def _wait(wardian: Callable[..., Any], name: str, status: str) -> dict[str, Any]:
    waited = wardian("agent", "wait", name, "--until", status, "--timeout", "30s")
    assert waited.returncode == 0, waited.stderr
    agent: dict[str, Any] = waited.json()["agent"]
    return agent


def _kill_host(home: Path) -> None:
    host = running_host_pid(home)
    assert host is not None and host > 0
    os.kill(host, signal.SIGKILL)
    assert wait_until_gone(host, 20)


def _status_changes(home: Path, agent: str, after_event: int) -> list[dict[str, Any]]:
    with sqlite3.connect(home / "state.db") as conn:
        rows = conn.execute(
            "SELECT payload FROM events WHERE agent = ? AND kind = 'status' AND id > ? ORDER BY id",
            (agent, after_event),
        ).fetchall()
    return [json.loads(row[0]) for row in rows]


def _last_event(home: Path) -> int:
    with sqlite3.connect(home / "state.db") as conn:
        return int(conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])


def test_telemetry_goes_on_from_where_a_killed_host_stopped(
    example_agent: Callable[[str], dict[str, Any]], wardian: Callable[..., Any], wardian_home: Path
) -> None:
    agent = example_agent("tele")["uuid"]
    hooks = wardian_home / "agents" / agent / "example" / "hooks.jsonl"

    def hook(**record: Any) -> None:
        """What the CLI's hooks append, one line at a time."""
        with hooks.open("a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")

    hook(event="turn_started")
    _wait(wardian, "tele", "processing")
    hook(event="permission_request", tool="rm")
    _wait(wardian, "tele", "action_required")
    hook(event="permission_resolved", answer="accepted")
    _wait(wardian, "tele", "processing")
    hook(event="turn_completed", output_tokens=5)
    _wait(wardian, "tele", "idle")
    before_kill = _last_event(wardian_home)
    _kill_host(wardian_home)

    # A turn that ended while no host ran, and the next one begun.
    hook(event="turn_started")
    hook(event="turn_completed", output_tokens=7)
    hook(event="turn_started")
    assert wardian("host", "start").returncode == 0

    _wait(wardian, "tele", "processing")
    assert (
        wardian("agent", "tele", "--fields", "status_evidence").json()["agent"]["status_evidence"]["source"] == "hooks"
    )
    changes = [(change["from"], change["to"]) for change in _status_changes(wardian_home, agent, before_kill)]
    # The old host's dialog is not read as new (no action_required again); the turn no host saw is.
    assert changes == [("idle", "processing"), ("processing", "idle"), ("idle", "processing")]
    usage = wardian("agent", "tele", "--fields", "usage").json()["agent"]["usage"]
    assert (usage["turns"], usage["output_tokens"]) == (2, 5 + 7)  # each turn once, none merged
