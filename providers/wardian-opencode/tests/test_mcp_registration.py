"""Wardian's MCP server in the agent's opencode.json: added beside the user's own servers."""

import json
from pathlib import Path

from wardian_core.provider import McpRegistration
from wardian_core.provider.testing import mcp_registration, spawn_context
from wardian_opencode import home

REGISTRATION = mcp_registration("whoami")
THEIRS = {"type": "local", "command": ["their-server"], "enabled": True}


def _agent_config(tmp_path: Path, registration: McpRegistration | None) -> dict[str, object]:
    users = tmp_path / "users-opencode.json"
    users.write_text('{"mcp": {"theirs": ' + json.dumps(THEIRS) + "}, // theirs\n}")
    ctx = spawn_context(tmp_path, "opencode", mcp=registration)
    home.prepare(ctx, env={"OPENCODE_CONFIG": str(users)})
    config: dict[str, object] = json.loads(home.config_file(ctx).read_text())
    return config


def test_the_server_is_added_beside_the_users(tmp_path: Path) -> None:
    assert _agent_config(tmp_path, REGISTRATION)["mcp"] == {
        "theirs": THEIRS,
        "wardian": {
            "type": "local",
            "command": ["/opt/py/bin/python", "-m", "wardian_host", "mcp"],
            "environment": {"WARDIAN_HOME": "/w", "WARDIAN_SESSION_ID": "u"},
            "enabled": True,
        },
    }


def test_without_registration_the_agent_has_the_users_servers_only(tmp_path: Path) -> None:
    _agent_config(tmp_path, REGISTRATION)
    assert _agent_config(tmp_path, None)["mcp"] == {"theirs": THEIRS}
