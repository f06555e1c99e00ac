"""A send to a real Codex agent is confirmed by its turn start, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from mcp_checks import assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli
from wardian_homes import wardian_for

pytestmark = pytest.mark.real_cli

MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"
# Its UserPromptSubmit hook or the rollout's task_started, whichever the host reads first.
TURN_STARTS = {"hook UserPromptSubmit", "event_msg/task_started"}


@pytest.fixture
def wardian(codex_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Codex: the user's Codex home (HOME/.codex) points at the model server."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    with wardian_for(codex_cli, tmp_path, monkeypatch, {"MOCK_MODEL_API_KEY": MOCK_API_KEY}) as wardian:
        yield wardian


def test_a_send_is_confirmed_by_the_turn_start(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "cx", TURN_STARTS)
    wardian.cli.assert_only_model_server_was_called()


def test_the_agent_lists_agents_and_answers_an_ask_through_wardians_tools(wardian: WardianCli) -> None:
    assert_the_agent_uses_wardians_tools(wardian, "cx-mcp")
