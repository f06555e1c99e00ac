"""Wardian's MCP server in Claude Code: `agents/<uuid>/claude/mcp.json`, passed with `--mcp-config`
(which adds to the servers of the user's own `.claude.json` and `.mcp.json`: they stay, as
`--strict-mcp-config` is never given), and the cooperation tools allowed in the `--settings` file."""

import json
from pathlib import Path

from wardian_core.provider import McpRegistration, SpawnContext
from wardian_core.provider.home import stdio_server, write_if_changed


def config_file(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "claude" / "mcp.json"


def tool_rule(registration: McpRegistration, tool: str) -> str:
    """Claude's permission rule of one MCP tool (2.1.197): `mcp__<server>__<tool>`."""
    return f"mcp__{registration.name}__{tool}"


def permissions(ctx: SpawnContext) -> dict[str, object]:
    """What the settings file adds so these tools run without a dialog; nothing when unregistered."""
    if ctx.mcp is None:
        return {}
    return {"permissions": {"allow": [tool_rule(ctx.mcp, tool) for tool in ctx.mcp.allowed_tools]}}


def write_config(ctx: SpawnContext) -> None:
    target = config_file(ctx)
    if ctx.mcp is None:
        target.unlink(missing_ok=True)
        return
    # alwaysLoad (2.1.330): its tools are in every prompt, never behind tool search, and the
    # first prompt waits (up to 5 s) for the server to be connected.
    server = {"type": "stdio"} | stdio_server(ctx.mcp.command, ctx.mcp.args, ctx.mcp.env) | {"alwaysLoad": True}
    write_if_changed(target, json.dumps({"mcpServers": {ctx.mcp.name: server}}, indent=2) + "\n")


def args(ctx: SpawnContext) -> list[str]:
    """`--mcp-config`; a headless run, which has no `--settings` file and no one to ask, also
    gets the cooperation tools in `--allowedTools`."""
    if ctx.mcp is None:
        return []
    allowed = ["--allowedTools", ",".join(tool_rule(ctx.mcp, tool) for tool in ctx.mcp.allowed_tools)]
    return ["--mcp-config", str(config_file(ctx))] + (allowed if ctx.mode == "headless" else [])
