"""A send to a real OpenCode agent is confirmed by its session turning busy, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once, assert_send_confirmed, times_received
from mcp_checks import assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli
from wardian_homes import wardian_for

pytestmark = pytest.mark.real_cli


@pytest.fixture
def wardian(opencode_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` whose host (and so every agent) inherits the OPENCODE_CONFIG naming the model server."""
    inherited = {name: value for name, value in opencode_cli.env.items() if name.startswith("OPENCODE_")}
    with wardian_for(opencode_cli, tmp_path, monkeypatch, inherited) as wardian:
        yield wardian


def test_a_send_is_confirmed_by_the_session_turning_busy(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "oc", {"session.status busy"})
    wardian.cli.assert_only_model_server_was_called()


def test_a_send_during_a_turn_is_confirmed_by_its_user_message(wardian: WardianCli) -> None:
    common = ["--provider", "opencode", "--class", "Coder", "--name", "oc", "--workspace", str(wardian.workspace)]
    wardian("agent", "spawn", *common, "--provider-setting", "shell_permission=ask")
    wardian.wait("oc", "idle", "ready")
    # One command, one dialog: OpenCode may ask once per command of a `&&` chain.
    wardian("send", "run MOCK_TOOL:sleep 5 ECHO:first1", "--to", "oc")
    wardian.wait("oc", "action_required", "approval_requested")
    wardian("send", "--approval", "accept", "--to", "oc", "--timeout", "30s")

    # The approved command still sleeps: the session is busy and turns busy no second time.
    answer = wardian("send", "queued behind it ECHO:queued2", "--to", "oc")

    assert answer["results"][0]["queued"] is True
    assert_send_confirmed(answer, {"message.updated user"})
    wardian.cli.server.wait_for(lambda request: "ECHO:queued2" in request.body_text(), 60)
    wardian.wait("oc", "idle", "turn_completed")
    assert times_received(wardian.cli.server.requests, "ECHO:queued2") == 1


def test_the_agent_lists_agents_and_answers_an_ask_through_wardians_tools(wardian: WardianCli) -> None:
    assert_the_agent_uses_wardians_tools(wardian, "oc-mcp")
