"""What `agent screen` answers (and the MCP tool `agent_screen`): a live agent's visible screen."""

from typing import Any

from wardian_core import paths, roster
from wardian_core.errors import WardianError, not_live
from wardian_host.answers.connection import request
from wardian_host.answers.records import envelope


def screen_answer(target: str) -> dict[str, Any]:
    """What `agent screen` prints (and the MCP tool `agent_screen` answers)."""
    try:
        return envelope("screen", request("agent.screen", {"target": target}))
    except WardianError as error:
        if error.code != "app_not_running":
            raise
        raise _not_live_without_host(target) from None


def _not_live_without_host(target: str) -> WardianError:
    """No host runs, so no agent is live; an unknown name is still `not_found`."""
    record = roster.show_agent(paths.wardian_home(), target)
    return not_live(record["name"], record["status"], "no host runs, so it has no terminal to show")
