"""`idle` means ready, Wardian's MCP tools included: an agent whose CLI was given Wardian's MCP
server becomes `idle` for the first time only once that CLI has listed the tools (the host
serves them, so it sees the listing), or, where it never does, after a bound, with evidence
saying the tools are missing and why. A CLI that says as it becomes ready that it starts no
MCP server this launch (`ProviderEvent.without_mcp`) is ready at once, its tools missing.

A CLI draws its prompt while it still connects its MCP servers: on a busy machine Claude Code
2.1.197 and 2.1.332 offered the model none of Wardian's tools on the first prompt after its
prompt was drawn, and the same prompt worked twenty seconds later.
"""

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from wardian_core.provider_models import ProviderEvent
from wardian_host.agents.live_agent import LiveAgent

# A CLI that has not listed the tools this long after its prompt is ready without them.
READY_BOUND_SECONDS = 30.0

log = logging.getLogger(__name__)

Release = Callable[[LiveAgent, dict[str, Any], ProviderEvent | None], None]


def missing_why(seconds: float) -> str:
    return (
        f"its CLI did not list Wardian's MCP tools within {seconds:g} s of drawing its prompt: the model is not "
        "offered them (look at the CLI's own MCP status, e.g. `/mcp`, and `wardian host logs`)"
    )


class McpReadiness:
    """Holds an agent's first `idle` until its CLI lists Wardian's tools, or the bound passes."""

    def __init__(self, release: Release, bound_seconds: float = READY_BOUND_SECONDS) -> None:
        self._release = release  # sets the held status: the tracker's own set_status
        self._bound = bound_seconds
        self._held: dict[str, tuple[dict[str, Any], ProviderEvent | None, asyncio.TimerHandle]] = {}

    def holds(self, agent: LiveAgent, evidence: dict[str, Any], event: ProviderEvent | None) -> bool:
        """Whether this `starting -> idle` waits: the CLI was given the tools and has not listed them."""
        if agent.mcp_tools != "waiting" or agent.status != "starting":
            return False
        previous = self._held.pop(agent.uuid, None)
        if previous is not None:
            previous[2].cancel()
        timer = asyncio.get_running_loop().call_later(self._bound, self._bound_passed, agent)
        self._held[agent.uuid] = (evidence, event, timer)
        return True

    def declined(self, agent: LiveAgent, why: str) -> dict[str, Any]:
        """Its CLI said, as it became ready, that it starts no MCP server this launch: nothing to
        wait for. What the ready's evidence says of the tools (nothing if none were awaited)."""
        if agent.mcp_tools != "waiting" or agent.status != "starting":
            return {}
        log.info("agent %s: ready without Wardian's MCP tools: %s", agent.name, why)
        self.forget(agent)  # a ready held before a dialog: its bound has nothing left to wait for
        agent.mcp_tools = "missing"
        return {"mcp_tools": "missing", "mcp_why": why}

    def listed(self, agent: LiveAgent) -> None:
        """Its CLI listed the tools (an MCP session of its own asked `tools/list`)."""
        if agent.mcp_tools != "connected":
            log.info("agent %s: its CLI listed Wardian's MCP tools (%s)", agent.name, agent.status)
        agent.mcp_tools = "connected"
        self._let_go(agent, {"mcp_tools": "connected"})

    def reconnected(self, agent: LiveAgent) -> None:
        """Its CLI's relay came back to a new host (a restart): the tools it listed before it has still."""
        if agent.mcp_tools == "not_registered" and agent.status != "starting":
            agent.mcp_tools = "connected"

    def launched(self, agent: LiveAgent, registered: bool) -> None:
        """A new launch: its CLI has the tools to list again, if it was given the server."""
        self.forget(agent)
        agent.mcp_tools = "waiting" if registered else "not_registered"

    def forget(self, agent: LiveAgent) -> None:
        held = self._held.pop(agent.uuid, None)
        if held is not None:
            held[2].cancel()

    def _bound_passed(self, agent: LiveAgent) -> None:
        why = missing_why(self._bound)
        log.warning("agent %s: %s", agent.name, why)
        agent.mcp_tools = "missing"
        self._let_go(agent, {"mcp_tools": "missing", "mcp_why": why})

    def _let_go(self, agent: LiveAgent, why: dict[str, Any]) -> None:
        held = self._held.pop(agent.uuid, None)
        if held is None:
            return
        evidence, event, timer = held
        timer.cancel()
        if agent.status == "starting":  # a dialog or an exit meanwhile decided otherwise
            self._release(agent, evidence | why, event)
