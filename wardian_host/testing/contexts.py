"""A `SpawnContext` for a provider's unit tests: one agent whose Wardian home is under a temp folder."""

from pathlib import Path
from typing import Any

from wardian_core.provider_models import LaunchConfig, McpRegistration, SpawnContext

TEST_AGENT_UUID = "0b7e6f3c-1111-4222-8333-444455556666"


def spawn_context(tmp_path: Path, provider: str, **fields: Any) -> SpawnContext:
    """`fields` override the context's own; `settings`, `include_dirs`, `model` and `extra_args` go into its launch."""
    home = tmp_path / "wardian"
    workspace = fields.pop("workspace", tmp_path / "proj")
    Path(workspace).mkdir(parents=True, exist_ok=True)
    launch = LaunchConfig(
        settings=fields.pop("settings", {}),
        include_dirs=fields.pop("include_dirs", []),
        model=fields.pop("model", None),
        extra_args=fields.pop("extra_args", []),
    )
    values: dict[str, Any] = {
        "agent_uuid": TEST_AGENT_UUID,
        "agent_name": "coder",
        "class_name": "Coder",
        "provider": provider,
        "workspace": workspace,
        "wardian_home": home,
        "agent_dir": home / "agents" / TEST_AGENT_UUID,
        "launch": launch,
    }
    return SpawnContext(**(values | fields))


def mcp_registration(*allowed_tools: str) -> McpRegistration:
    """Wardian's MCP server as a launch registers it (`SpawnContext.mcp`), for a provider's unit tests."""
    return McpRegistration(
        command="/opt/py/bin/python",
        args=["-m", "wardian_host", "mcp"],
        env={"WARDIAN_HOME": "/w", "WARDIAN_SESSION_ID": "u"},
        allowed_tools=list(allowed_tools),
    )
