"""Whether an agent's CLI gets Wardian's MCP server, and how it is to start it: one rule for the
host's launches and `providers show`.

The server is this installation's `wardian mcp` (by the host's own interpreter, as
`<home>/bin/wardian` runs it), told its home and agent in its environment: a CLI may pass an
MCP server only a few of its own variables (the SDKs' stdio clients keep PATH, HOME and a few
more). Which agent calls is still the host's to decide from the process tree, never from
that variable alone.
"""

import sys
from pathlib import Path

from wardian_core.mcp_tools import COOPERATION_TOOLS, SERVER_NAME, TOOL_NAMES
from wardian_core.provider_models import McpRegistration, ProviderInfo
from wardian_core.settings.model import McpSettings

CAPABILITY = "mcp_tools"


def registered_or_why_not(settings: McpSettings, info: ProviderInfo) -> tuple[bool, str]:
    """Whether `info`'s agents get the server, and why (what `providers show` says)."""
    if CAPABILITY not in info.capabilities:
        return False, f"{info.display_name} registers no MCP server (no `{CAPABILITY}` capability)"
    if not settings.enabled:
        return False, "turned off in settings.toml (`[mcp] enabled = false`)"
    if info.name in settings.providers_off():
        return False, f"turned off for {info.name} in settings.toml (`[mcp] disabled_for`)"
    return True, f"registered as `{SERVER_NAME}` in each agent's {info.display_name} configuration"


def allowed_tools(settings: McpSettings) -> list[str]:
    extra = settings.extra_tools()
    if "all" in extra:
        return list(TOOL_NAMES)
    return [*COOPERATION_TOOLS, *(name for name in extra if name not in COOPERATION_TOOLS)]


def mcp_registration(home: Path, session_id: str, settings: McpSettings, info: ProviderInfo) -> McpRegistration | None:
    if not registered_or_why_not(settings, info)[0]:
        return None
    return McpRegistration(
        name=SERVER_NAME,
        command=sys.executable,
        args=["-m", "wardian_host", "mcp"],
        env={"WARDIAN_HOME": str(home), "WARDIAN_SESSION_ID": session_id},
        allowed_tools=allowed_tools(settings),
    )
