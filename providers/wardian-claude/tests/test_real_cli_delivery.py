"""A send to a real Claude Code agent is confirmed by its UserPromptSubmit hook, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from mcp_checks import assert_a_headless_run_uses_wardians_tools, assert_the_agent_uses_wardians_tools
from wardian_cli import WardianCli
from wardian_homes import wardian_fixture

pytestmark = pytest.mark.real_cli


@pytest.fixture
def wardian(claude_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` whose host (and so every agent) inherits what points Claude at the model server."""
    inherited = {name: value for name, value in claude_cli.env.items() if name != "HOME"}
    yield from wardian_fixture(claude_cli, tmp_path, monkeypatch, inherited)


def test_the_agent_uses_wardians_tools_then_a_send_is_confirmed_by_the_user_prompt_submit_hook(
    wardian: WardianCli,
) -> None:
    """One agent (a Claude start saved): Wardian's tools first, since they must reach the very
    first prompt after it turned idle by its ready prompt; then a send to it, idle again."""
    assert_the_agent_uses_wardians_tools(wardian, "cc")
    assert_a_send_is_confirmed_once(wardian, "cc", {"hook UserPromptSubmit"}, spawned=True)


def test_a_headless_run_calls_wardians_tools_without_asking(wardian: WardianCli) -> None:
    assert_a_headless_run_uses_wardians_tools(wardian, "cc-run")
