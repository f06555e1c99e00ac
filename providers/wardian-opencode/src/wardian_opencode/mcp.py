"""Wardian's MCP server in the agent's OpenCode: an entry of `mcp` in the agent's opencode.json,
beside the user's own servers (their `OPENCODE_CONFIG` file's are copied in; their global and
project files are still read by OpenCode). OpenCode 1.18 runs MCP tools without asking unless the
user's `permission` says otherwise, so the cooperation tools need no allowance of their own."""

from typing import Any

from wardian_core.provider import McpRegistration


def with_server(config: dict[str, Any], registration: McpRegistration | None) -> dict[str, Any]:
    if registration is None:
        return config
    theirs = config.get("mcp")
    servers = dict(theirs) if isinstance(theirs, dict) else {}
    server = {
        "type": "local",
        "command": [registration.command, *registration.args],
        "environment": dict(registration.env),
        "enabled": True,
    }
    return config | {"mcp": servers | {registration.name: server}}
