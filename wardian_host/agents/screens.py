"""`wardian agent screen`: what a live agent's terminal shows now."""

from typing import Any

from wardian_core.errors import WardianError
from wardian_host.agents.live_agent import LiveAgent


def not_live(agent: LiveAgent, action: str) -> WardianError:
    """The refusal for an agent without a terminal of this host (off, error or headless)."""
    return WardianError(
        "not_live",
        f"agent {agent.name} is {agent.status}: it has no terminal to {action}",
        f"Resume it first: `wardian agent resume {agent.name}`.",
        {"agent": agent.name, "status": agent.status},
    )


async def show_screen(agent: LiveAgent) -> dict[str, Any]:
    if not agent.is_running:
        raise not_live(agent, "show")
    screen = await agent.screen.snapshot()
    return {"agent": agent.name, "uuid": agent.uuid, "status": agent.status} | screen.model_dump()
