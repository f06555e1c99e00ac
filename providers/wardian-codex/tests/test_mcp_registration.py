"""Wardian's MCP server in the agent's Codex config.toml: added beside the user's own servers."""

import tomllib
from pathlib import Path

import pytest

from wardian_codex import home
from wardian_core.provider import McpRegistration
from wardian_core.provider.testing import mcp_registration, spawn_context

REGISTRATION = mcp_registration("whoami", "reply")


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    codex = tmp_path / "user" / ".codex"
    codex.mkdir(parents=True)
    (codex / "config.toml").write_text('[mcp_servers.theirs]\ncommand = "their-server"\nargs = ["--fast"]\n')
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return codex


def _servers(tmp_path: Path, registration: McpRegistration | None) -> dict[str, object]:
    ctx = spawn_context(tmp_path, "codex", mcp=registration)
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    servers: dict[str, object] = tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]
    return servers


def test_the_server_is_added_beside_the_users_with_its_cooperation_tools_approved(
    tmp_path: Path, user_home: Path
) -> None:
    servers = _servers(tmp_path, REGISTRATION)
    assert servers["theirs"] == {"command": "their-server", "args": ["--fast"]}
    assert servers["wardian"] == {
        "command": "/opt/py/bin/python",
        "args": ["-m", "wardian_host", "mcp"],
        "env": {"WARDIAN_HOME": "/w", "WARDIAN_SESSION_ID": "u"},
        "startup_timeout_sec": 30,
        "tools": {"whoami": {"approval_mode": "approve"}, "reply": {"approval_mode": "approve"}},
    }


def test_a_launch_without_registration_drops_ours_and_keeps_theirs(tmp_path: Path, user_home: Path) -> None:
    _servers(tmp_path, REGISTRATION)
    assert _servers(tmp_path, None) == {"theirs": {"command": "their-server", "args": ["--fast"]}}
