"""What `host whoami` answers (and the MCP tool `whoami`): how the host classifies its caller."""

from typing import Any

from wardian_core.fields import live_agent
from wardian_host.answers.connection import request
from wardian_host.answers.records import envelope


def whoami_answer() -> dict[str, Any]:
    """`host whoami`'s JSON (and the MCP tool `whoami`'s): how the host classifies this process."""
    caller = request("host.whoami")
    if caller.get("agent") is not None:
        caller["agent"] = live_agent(caller["agent"])
    return envelope("caller", caller)
