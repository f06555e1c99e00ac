"""A send to a real OpenCode agent is confirmed by its session turning busy, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py). One agent carries all three
checks: each OpenCode start costs 6 to 10 s of CPU, the most of any CLI."""

import pytest
from delivery_checks import assert_a_send_is_confirmed_once, assert_send_confirmed, times_received
from mcp_checks import assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli


def test_one_agent_uses_wardians_tools_then_a_send_is_confirmed_by_busy_and_one_during_a_turn_by_its_message(
    wardian: WardianCli,
) -> None:
    """In this order: Wardian's tools first, since they must reach the very first prompt after the
    agent turned idle; then a send to the idle agent is confirmed by its session turning busy; then
    a send during a turn (held at the shell's dialog, hence `shell_permission=ask` at the spawn) is
    confirmed by its user message, the session being busy already."""
    assert_the_agent_uses_wardians_tools(wardian, "oc", ("--provider-setting", "shell_permission=ask"))
    assert_a_send_is_confirmed_once(wardian, "oc", {"session.status busy"}, spawned=True)

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
