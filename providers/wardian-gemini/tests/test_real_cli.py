"""Acceptance through `wardian` itself: the real Gemini CLI (0.61.0) against the loopback model server.

Each test spawns Gemini agents with `wardian agent spawn --provider gemini`, talks to them with
`wardian send`, waits with `wardian agent wait`, and checks every status it waits for by the
event that caused it (`status_evidence`), so an idle reached any other way cannot pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli


@pytest.fixture
def wardian(gemini_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Gemini CLI: the user's Gemini home points at the model server."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))
    monkeypatch.setenv("WARDIAN_GEMINI_EXECUTABLE", str(gemini_cli.executable))
    monkeypatch.setenv("WARDIAN_PLUGINS", "gemini")
    # The host (and so every agent) inherits what points Gemini at the model server.
    for name in ("GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_NO_RELAUNCH"):
        monkeypatch.setenv(name, gemini_cli.env[name])
    try:
        yield WardianCli(wardian_home, gemini_cli.workspace.resolve(), gemini_cli, "gemini")
    finally:
        reap_home(wardian_home)


def hook_events(wardian: WardianCli, uuid: str) -> list[str]:
    lines = (wardian.home / "agents" / uuid / "gemini" / "hooks.jsonl").read_text().splitlines()
    return [json.loads(line)["hook_event_name"] for line in lines]


def test_spawn_is_idle_a_turn_completes_and_the_session_id_is_wardians(wardian: WardianCli) -> None:
    agent = wardian.spawn("gm")
    ready = wardian.wait("gm", "idle", "ready")
    assert ready["status_evidence"]["rule"] == "ready prompt after hook SessionStart"
    # Wardian assigned the id up front (--session-id); Gemini's own SessionStart names the same.
    session = ready["provider_session_id"]
    lines = (wardian.home / "agents" / agent["uuid"] / "gemini" / "hooks.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["session_id"] == session

    sent = wardian("send", "hello ECHO:g1", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")
    done = sent["agent"]["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) == ("turn_completed", "gemini-hooks", "hook AfterAgent")
    watched = wardian.watch("gm")
    assert "MOCK-REPLYg1" in "".join(watched["output"].split())
    assert [event["to"] for event in watched["events"]][-2:] == ["processing", "idle"]
    assert watched["events"][-2]["evidence"]["rule"] == "hook BeforeAgent"
    assert hook_events(wardian, agent["uuid"])[-2:] == ["BeforeAgent", "AfterAgent"]


def test_a_tool_call_is_approved_from_wardian(wardian: WardianCli) -> None:
    wardian.spawn("gm")
    wardian.wait("gm", "idle", "ready")
    wardian("send", "run MOCK_TOOL:touch approved.txt ECHO:t1", "--to", "gm")
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert (asked["source"], asked["rule"], asked["line"]) == (
        "gemini-hooks",
        "hook Notification ToolPermission",
        "touch approved.txt",
    )
    assert (asked["reason"], asked["dialog"]) == ("tool", "tool")
    assert not (wardian.workspace / "approved.txt").exists()
    answer = wardian("send", "--approval", "accept", "--to", "gm", "--timeout", "30s")
    assert answer["left_action_required"] is True
    wardian.wait("gm", "idle", "turn_completed")
    assert (wardian.workspace / "approved.txt").exists()


def test_a_refused_tool_call_leaves_nothing_on_disk_and_kill_leaves_no_process(wardian: WardianCli) -> None:
    agent = wardian.spawn("gm")
    wardian.wait("gm", "idle", "ready")
    wardian("send", "run MOCK_TOOL:touch refused.txt ECHO:t2", "--to", "gm")
    wardian.wait("gm", "action_required", "approval_requested")
    refused = wardian("send", "--approval", "reject", "--to", "gm", "--timeout", "30s")
    assert refused["left_action_required"] is True
    left = refused["agent"]["status_evidence"]
    assert left["event"] == "approval_resolved", left
    assert not (wardian.workspace / "refused.txt").exists()
    assert "AfterTool" not in hook_events(wardian, agent["uuid"])

    wardian("agent", "kill", "gm")
    wardian("agent", "wait", "gm", "--until", "off", "--timeout", "30s")
    habitat = str(wardian.home / "agents" / agent["uuid"] / "habitat")
    for process in psutil.process_iter():
        try:
            environ = process.environ()
        except (psutil.Error, OSError):
            continue
        assert environ.get("GEMINI_CLI_HOME") != habitat, f"process {process.pid} still runs with the agent's home"
