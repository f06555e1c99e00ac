"""A send to a real OpenCode agent is confirmed by its session turning busy, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

import pytest
from delivery_checks import assert_a_send_is_confirmed_once, assert_send_confirmed, times_received
from mcp_checks import assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli


def test_a_send_is_confirmed_by_the_session_turning_busy(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "oc", {"session.status busy"})


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
