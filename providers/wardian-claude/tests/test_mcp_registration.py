"""Wardian's MCP server in the agent's Claude Code: added beside the user's own servers."""

import json
from pathlib import Path

import pytest

from wardian_claude import argv, home, mcp
from wardian_core.provider.testing import mcp_registration, spawn_context

REGISTRATION = mcp_registration("whoami", "reply")


@pytest.fixture
def users_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's own Claude config, with an MCP server of theirs."""
    config_dir = tmp_path / "users-claude"
    config_dir.mkdir()
    (config_dir / ".claude.json").write_text(json.dumps({"mcpServers": {"theirs": {"command": "their-server"}}}))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    return config_dir / ".claude.json"


def test_the_server_is_added_with_its_cooperation_tools_allowed(tmp_path: Path, users_claude: Path) -> None:
    ctx = spawn_context(tmp_path, "claude", mcp=REGISTRATION)
    home.prepare(ctx)
    servers = json.loads(mcp.config_file(ctx).read_text())["mcpServers"]
    assert servers == {
        "wardian": {
            "type": "stdio",
            "command": "/opt/py/bin/python",
            "args": ["-m", "wardian_host", "mcp"],
            "env": {"WARDIAN_HOME": "/w", "WARDIAN_SESSION_ID": "u"},
            "alwaysLoad": True,
        }
    }
    settings = json.loads(home.settings_file(ctx).read_text())
    assert settings["permissions"]["allow"] == ["mcp__wardian__whoami", "mcp__wardian__reply"]
    assert "hooks" in settings
    launch = argv.launch_plan(ctx).argv
    assert launch[launch.index("--mcp-config") + 1] == str(mcp.config_file(ctx))
    # The user's servers stay: their file is theirs, and the launch never makes ours the only ones.
    assert json.loads(users_claude.read_text())["mcpServers"] == {"theirs": {"command": "their-server"}}
    assert "--strict-mcp-config" not in launch


def test_an_unregistered_agent_gets_no_server_and_no_allowance(tmp_path: Path, users_claude: Path) -> None:
    registered = spawn_context(tmp_path, "claude", mcp=REGISTRATION)
    home.prepare(registered)
    ctx = spawn_context(tmp_path, "claude")
    home.prepare(ctx)
    assert not mcp.config_file(ctx).exists()  # the earlier launch's file is gone
    assert "permissions" not in json.loads(home.settings_file(ctx).read_text())
    assert "--mcp-config" not in argv.launch_plan(ctx).argv


def test_a_headless_run_allows_the_cooperation_tools_on_its_command_line(tmp_path: Path, users_claude: Path) -> None:
    ctx = spawn_context(tmp_path, "claude", mcp=REGISTRATION, mode="headless", prompt="hi")
    home.prepare(ctx)
    launch = argv.launch_plan(ctx).argv
    assert launch[launch.index("--allowedTools") + 1] == "mcp__wardian__whoami,mcp__wardian__reply"
    assert launch[-2:] == ["--", "hi"]
    interactive = argv.launch_plan(spawn_context(tmp_path, "claude", mcp=REGISTRATION)).argv
    assert "--allowedTools" not in interactive  # its --settings file allows them
