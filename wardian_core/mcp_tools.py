"""The names of Wardian's MCP tools, shared by the server (`wardian mcp`), the host that registers
it in each agent's CLI, and the providers that write that registration in their CLI's format.

Plain data: the host reads it while it builds a launch, providers while they project a home.
"""

from typing import Literal

SERVER_NAME = "wardian"

# Whether an agent's CLI has Wardian's tools (`agent show --verbose`): a CLI registered with the
# server is `waiting` from its launch until it lists the tools (`connected`), or until a bound
# after its prompt is drawn (`missing`); `not_registered` when it was not given the server.
McpToolsState = Literal["not_registered", "waiting", "connected", "missing"]

# What an agent needs to cooperate with its peers: allowed without a per-call approval in the
# agent's projected CLI settings. Every other tool follows the CLI's own approval rules unless
# the user allows it in settings.toml (`[mcp] allowed_tools`).
COOPERATION_TOOLS: tuple[str, ...] = (
    "whoami",
    "list_agents",
    "show_agent",
    "agent_screen",
    "reply",
    "send",
    "ask",
    "wait_for_agent",
)

TOOL_NAMES: tuple[str, ...] = (
    *COOPERATION_TOOLS,
    "show_request",
    "watch_output",
    "spawn_agent",
    "kill_agent",
    "pause_agent",
    "resume_agent",
    "list_workflows",
    "show_workflow",
    "run_workflow",
    "workflow_run_status",
)


def stdio_server(command: str, args: list[str], env: dict[str, str]) -> dict[str, object]:
    """The server as Claude Code's and Gemini CLI's `mcpServers` entries write a stdio server."""
    return {"command": command, "args": list(args), "env": dict(env)}
