"""Wardian's MCP server in the agent's Codex: `[mcp_servers.wardian]` in its config.toml, beside
the user's own `[mcp_servers.*]` (merged in from their file), its cooperation tools approved
per tool (`tools.<tool>.approval_mode = "approve"`, Codex 0.169)."""

from typing import Any

from wardian_core.provider import SpawnContext

# Codex waits 10 s for a server to start by default; an MCP SDK import on a busy machine can
# take longer than that, and a server that missed it is left out of the session.
STARTUP_TIMEOUT_SECONDS = 30


def config_entries(ctx: SpawnContext) -> dict[str, Any]:
    if ctx.mcp is None:
        return {}
    server = {
        "command": ctx.mcp.command,
        "args": list(ctx.mcp.args),
        "env": dict(ctx.mcp.env),
        "startup_timeout_sec": STARTUP_TIMEOUT_SECONDS,
        "tools": {tool: {"approval_mode": "approve"} for tool in ctx.mcp.allowed_tools},
    }
    return {"mcp_servers": {ctx.mcp.name: server}}


def without_stale_server(config: dict[str, Any], user_config: dict[str, Any], name: str) -> dict[str, Any]:
    """`config` without the server `name` an earlier launch registered, unless the user's own file has it."""
    servers = config.get("mcp_servers")
    theirs = user_config.get("mcp_servers")
    if not isinstance(servers, dict) or name not in servers or (isinstance(theirs, dict) and name in theirs):
        return config
    return config | {"mcp_servers": {key: value for key, value in servers.items() if key != name}}
