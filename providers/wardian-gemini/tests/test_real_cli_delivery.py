"""A send to a real Gemini CLI agent is confirmed by its BeforeAgent hook, through `wardian`;
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

GEMINI_VARIABLES = ("GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_NO_RELAUNCH")


@pytest.fixture
def wardian(gemini_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` whose host (and so every agent) inherits what points Gemini at the model server."""
    inherited = {name: gemini_cli.env[name] for name in GEMINI_VARIABLES}
    with wardian_for(gemini_cli, tmp_path, monkeypatch, inherited) as wardian:
        yield wardian


def test_a_send_is_confirmed_by_the_before_agent_hook(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "gem", {"hook BeforeAgent"})
    wardian.cli.assert_only_model_server_was_called()


def test_the_agent_lists_agents_and_answers_an_ask_through_wardians_tools(wardian: WardianCli) -> None:
    assert_the_agent_uses_wardians_tools(wardian, "gm-mcp")
