"""Wardian's MCP server in the agent's Gemini settings.json: added beside the user's own servers."""

import json
from pathlib import Path

import pytest

from wardian_core.provider import McpRegistration
from wardian_core.provider.testing import mcp_registration, spawn_context
from wardian_gemini import home

REGISTRATION = mcp_registration("whoami", "reply")
THEIRS = {"command": "their-server", "args": ["--fast"]}


@pytest.fixture
def users_settings(tmp_path: Path) -> dict[str, str]:
    """The user's Gemini settings, with an MCP server, allowed tools and a server allow-list of theirs."""
    gemini = tmp_path / "user" / ".gemini"
    gemini.mkdir(parents=True)
    settings = {"mcpServers": {"theirs": THEIRS}, "tools": {"allowed": ["read_file"]}, "mcp": {"allowed": ["theirs"]}}
    (gemini / "settings.json").write_text(json.dumps(settings))
    return {"GEMINI_CLI_HOME": str(tmp_path / "user")}


def _agent_settings(tmp_path: Path, env: dict[str, str], registration: McpRegistration | None) -> dict[str, object]:
    ctx = spawn_context(tmp_path, "gemini", mcp=registration)
    plan = home.prepare(ctx, env=env)
    written = Path(plan.env["GEMINI_CLI_HOME"]) / ".gemini" / "settings.json"
    settings: dict[str, object] = json.loads(written.read_text())
    return settings


def test_the_server_is_added_beside_the_users_with_its_cooperation_tools_allowed(
    tmp_path: Path, users_settings: dict[str, str]
) -> None:
    settings = _agent_settings(tmp_path, users_settings, REGISTRATION)
    assert settings["mcpServers"] == {
        "theirs": THEIRS,
        "wardian": {
            "command": "/opt/py/bin/python",
            "args": ["-m", "wardian_host", "mcp"],
            "env": {"WARDIAN_HOME": "/w", "WARDIAN_SESSION_ID": "u"},
        },
    }
    assert settings["tools"] == {"allowed": ["read_file", "mcp_wardian_whoami", "mcp_wardian_reply"]}
    assert settings["mcp"] == {"allowed": ["theirs", "wardian"]}  # their allow-list would leave ours out


def test_without_registration_the_agent_has_the_users_servers_only(
    tmp_path: Path, users_settings: dict[str, str]
) -> None:
    _agent_settings(tmp_path, users_settings, REGISTRATION)
    settings = _agent_settings(tmp_path, users_settings, None)
    assert settings["mcpServers"] == {"theirs": THEIRS}
    assert settings["tools"] == {"allowed": ["read_file"]}
