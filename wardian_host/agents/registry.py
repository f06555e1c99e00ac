"""The host's in-memory view of every agent, loaded from state.db at start."""

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import events
from wardian_core.errors import WardianError
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.output.buffer import OutputBuffer


class AgentRegistry:
    def __init__(self, conn: sqlite3.Connection, buffer_bytes: int) -> None:
        self._conn = conn
        self.buffer_bytes = buffer_bytes
        self._agents: dict[str, LiveAgent] = {}
        # Why no prompt may reach an agent now (its budget holds it), or None: asked by every
        # path that types a prompt (send, ask, a workflow node, a limit's resume); set by the host.
        self.prompt_refusal: Callable[[LiveAgent], WardianError | None] = lambda agent: None
        for row in agent_rows.list_agents(conn):
            self.add(row)

    def add(self, read: Mapping[str, Any]) -> LiveAgent:
        """A row read from state.db as a live agent, with the evidence of its stored status (an
        earlier host's, at start)."""
        row = agent_rows.agent_row(read)
        evidence = json.loads(row["status_evidence"]) if row["status_evidence"] else None
        agent = LiveAgent(row=row, buffer=OutputBuffer(self.buffer_bytes), status_evidence=evidence)
        self._agents[agent.uuid] = agent
        return agent

    def remove(self, agent: LiveAgent) -> None:
        self._agents.pop(agent.uuid, None)

    def all(self) -> list[LiveAgent]:
        return sorted(self._agents.values(), key=lambda a: (a.row["created_at"], a.name))

    def resolve(self, reference: str) -> LiveAgent:
        found = identity.find_in([a.row for a in self._agents.values()], reference)
        return self._agents[found["uuid"]]

    def get(self, agent_uuid: str) -> LiveAgent | None:
        return self._agents.get(agent_uuid)

    def status_mark(self, agent: LiveAgent) -> int:
        """A mark of the agent's status history so far, which outlives this host (state.db's
        newest event id): a wait a host restart cut short asks what arrived after it."""
        return events.last_event_id(self._conn, agent.uuid)

    def arrived_since(self, agent: LiveAgent, status: str, mark: int) -> bool:
        """Whether `agent` became `status` after `mark` (`status_mark`), even if it left it since."""
        return events.status_arrived_after(self._conn, agent.uuid, status, mark)

    def refresh(self, agent: LiveAgent) -> None:
        """Re-read the row after a write so the live view and state.db agree."""
        row = agent_rows.get_agent(self._conn, agent.uuid)
        if row is not None:
            agent.row = agent_rows.agent_row(row)
