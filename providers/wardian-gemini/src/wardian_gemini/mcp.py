"""Wardian's MCP server in the agent's Gemini CLI: an entry of `mcpServers` in the agent's
settings.json, beside the user's own (their settings are the base of the agent's), and its
cooperation tools in `tools.allowed` under the names Gemini's policy gives MCP tools
(`mcp_<server>_<tool>`, Gemini 0.61)."""

from typing import Any

from wardian_core.provider import McpRegistration
from wardian_core.provider.home import stdio_server


def tool_name(registration: McpRegistration, tool: str) -> str:
    return f"mcp_{registration.name}_{tool}"


def with_server(settings: dict[str, Any], registration: McpRegistration | None) -> dict[str, Any]:
    """`settings` (the user's, merged) with the server added, and let through where the user
    lists the servers allowed (`mcp.allowed`) or left out (`mcp.excluded`)."""
    if registration is None:
        return settings
    name = registration.name
    servers = _table(settings, "mcpServers")
    server = stdio_server(registration.command, registration.args, registration.env)
    tools = _table(settings, "tools")
    allowed = [item for item in tools.get("allowed") or [] if isinstance(item, str)]
    allowed += [tool_name(registration, tool) for tool in registration.allowed_tools]
    mcp = _table(settings, "mcp")
    if isinstance(mcp.get("allowed"), list) and name not in mcp["allowed"]:
        mcp["allowed"] = [*mcp["allowed"], name]
    if isinstance(mcp.get("excluded"), list):
        mcp["excluded"] = [item for item in mcp["excluded"] if item != name]
    merged = settings | {"mcpServers": servers | {name: server}, "tools": tools | {"allowed": allowed}}
    return merged | ({"mcp": mcp} if mcp else {})


def _table(settings: dict[str, Any], key: str) -> dict[str, Any]:
    value = settings.get(key)
    return dict(value) if isinstance(value, dict) else {}
