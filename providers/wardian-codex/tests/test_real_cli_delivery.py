"""A send to a real Codex agent is confirmed by its turn start, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from mcp_checks import assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli

# Its UserPromptSubmit hook or the rollout's task_started, whichever the host reads first.
TURN_STARTS = {"hook UserPromptSubmit", "event_msg/task_started"}


def test_a_send_is_confirmed_by_the_turn_start(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "cx", TURN_STARTS)


def test_the_agent_lists_agents_and_answers_an_ask_through_wardians_tools(wardian: WardianCli) -> None:
    assert_the_agent_uses_wardians_tools(wardian, "cx-mcp")
