"""A usage limit's resume outlives the host through the real `wardian` command: a `host restart`
and a `kill -9` of the host between the limit and its reset keep the stored schedule, and the
host that runs at the reset resumes the turn once (the example provider's stand-in CLI plays the
limit: it proves Wardian's plumbing, not a real CLI's)."""

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from host_restarts import crash_host

from wardian_core.db.connection import reading
from wardian_core.db.events import list_events

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

# Long enough for a restart, a crash and a start on two busy cores before the reset.
RESET_SECONDS = 30


@pytest.fixture
def wardian(run_wardian: Callable[..., Any], example_cli_env: dict[str, str]) -> Callable[..., Any]:
    """`wardian ARGS` whose host, whichever command starts it, has the example provider."""

    def run(*args: str) -> Any:
        result = run_wardian(*args, env=example_cli_env, timeout=150)
        assert result.returncode == 0, (args, result.stderr)
        return result.json()

    return run


def _limit(wardian: Callable[..., Any]) -> dict[str, Any]:
    limit: dict[str, Any] = wardian("agent", "show", "nightly", "--fields", "limit")["agent"]["limit"]
    return limit


def _steps(home: Path, uuid: str) -> list[dict[str, Any]]:
    with reading(home) as conn:
        return [event for event in list_events(conn, uuid) if event["kind"].startswith("limit_")]


def test_a_restart_and_a_crash_keep_the_resume_schedule_and_the_turn_resumes_once(
    wardian: Callable[..., Any], wardian_home: Path, workspace: Path
) -> None:
    (wardian_home / "settings.toml").write_text(
        "[limits]\nresume_delay_min_seconds = 0.0\nresume_delay_max_seconds = 0.5\n", encoding="utf-8"
    )
    identity = ["--class", "Coder", "--name", "nightly", "--workspace", str(workspace)]
    spawned = wardian("agent", "spawn", "--provider", "example", *identity)
    uuid = spawned["agent"]["uuid"]
    wardian("agent", "wait", "nightly", "--until", "idle", "--timeout", "30s")
    wardian("send", f"limit {RESET_SECONDS}", "--to", "nightly", "--wait-until", "idle", "--timeout", "30s")

    waited = wardian("agent", "wait", "nightly", "--until", "idle")
    assert waited["idle_reason"] == "limit"
    listed = wardian("agent", "list", "--limited")["agents"]
    assert [agent["name"] for agent in listed] == ["nightly"]
    scheduled = listed[0]["limit"]
    assert scheduled["resume_at"] >= scheduled["resets_at"]

    wardian("host", "restart")
    assert _limit(wardian) == scheduled
    crash_host(wardian_home)
    wardian("host", "start")
    assert _limit(wardian) == scheduled
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert now < scheduled["resume_at"], "the machine took the whole reset to restart the host"

    wardian("agent", "watch", "nightly", "--until", "output:you said: continue", "--timeout", "90s")
    wardian("agent", "wait", "nightly", "--until", "idle", "--timeout", "30s")
    steps = _steps(wardian_home, uuid)
    kinds = [step["kind"] for step in steps]
    # One schedule, kept by the two hosts that followed; one resume, after it.
    assert kinds == ["limit_reached", "limit_resume_scheduled", "limit_resume_started", "limit_resumed"], kinds
    assert steps[1]["payload"]["resume_at"] == scheduled["resume_at"] <= steps[2]["timestamp"]
    assert steps[3]["payload"]["by"] == "wardian"
    assert wardian("agent", "list", "--limited")["agents"] == []
    assert "idle_reason" not in wardian("agent", "wait", "nightly", "--until", "idle")
