"""`wardian agent screen`: what a live agent's terminal shows now."""

from typing import Any

from wardian_core.errors import not_live
from wardian_host.agents.live_agent import LiveAgent


async def show_screen(agent: LiveAgent) -> dict[str, Any]:
    if not agent.is_running:
        raise not_live(agent.name, agent.status, "it has no terminal to show")
    screen = await agent.screen.snapshot()
    return {"agent": agent.name, "uuid": agent.uuid, "status": agent.status} | screen.model_dump()
