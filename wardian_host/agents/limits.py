"""The usage limit on an agent's record: set by `limit_reached`/`limit_retrying`, cleared when a
turn starts again, every step an event in the agent's log and a word to whoever listens.

The limit lives in state.db's `agents.limit` (`wardian_core.limits.AgentLimit` as JSON) and in
`LiveAgent.row`, written here only; the resume it schedules is the `LimitResumer`'s.
"""

import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from wardian_core.clock import now_iso
from wardian_core.db import agents as agent_rows
from wardian_core.db.events import add_event
from wardian_core.limits import AgentLimit, LimitState, ResumedBy
from wardian_core.provider_models import ProviderEvent
from wardian_host.agents.live_agent import LiveAgent

log = logging.getLogger(__name__)

LIMIT_EVENTS = ("limit_reached", "limit_retrying")
# What says the model works again: a cut turn continues with a new turn; a CLI retrying by itself
# may go on in the same turn, so its tool calls and its turn's end say it too.
TURN_AGAIN = {"cut": ("turn_started",), "retrying": ("turn_started", "generating", "turn_completed")}

# Told of every step: (agent, step, its payload, the limit as it stands or None once resumed).
LimitListener = Callable[[LiveAgent, str, dict[str, Any], AgentLimit | None], None]


def limit_of(agent: LiveAgent) -> AgentLimit | None:
    """The limit the agent waits out, as its row holds it; None when it is not limited."""
    stored = agent.row.get("limit")
    return AgentLimit.model_validate_json(stored) if stored else None


class LimitRecord:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.listeners: list[LimitListener] = []
        # uuid -> who continues the turn while a resume of Wardian's is under way (`resuming`).
        self._resuming: dict[str, ResumedBy] = {}

    def apply_event(self, agent: LiveAgent, event: ProviderEvent) -> None:
        """Before the event changes the status: a waiter woken by `idle` reads the limit with it."""
        if event.kind in LIMIT_EVENTS and event.limit is not None:
            self._reached(agent, event)
            return
        limit = limit_of(agent)
        if limit is not None and event.kind in TURN_AGAIN[limit.state]:
            self._resumed(agent, limit, event)

    def agent_ended(self, agent: LiveAgent, status: str) -> None:
        """An agent that went off or into error waits out no limit: nobody can type into it.
        A relaunch Wardian makes to resume (`resume`) is not such an end."""
        limit = limit_of(agent)
        if limit is not None and agent.uuid not in self._resuming:
            self.store(agent, None)
            self.step(agent, "limit_cleared", {"limit": _summary(limit), "reason": f"the agent is {status}"}, None)

    @contextlib.contextmanager
    def resuming(self, agent: LiveAgent, by: ResumedBy) -> Iterator[None]:
        """While the block runs, a turn that starts is `by`'s resume (Wardian's, or the CLI's retry)."""
        self._resuming[agent.uuid] = by
        try:
            yield
        finally:
            self._resuming.pop(agent.uuid, None)

    def store(self, agent: LiveAgent, limit: AgentLimit | None) -> None:
        stored = limit.model_dump_json() if limit is not None else None
        agent_rows.update_columns(self._conn, agent.uuid, limit=stored)
        agent.row = agent.row | {"limit": stored}

    def step(self, agent: LiveAgent, kind: str, payload: dict[str, Any], limit: AgentLimit | None) -> None:
        """One step: an event in state.db and the agent's log (`agent watch`), then the listeners.
        `payload` has no `kind` of its own: the log's entries take the step's."""
        at = now_iso()
        add_event(self._conn, agent.uuid, kind, payload, at=at)
        agent.log_event(kind, payload, at)
        log.info("agent %s: %s %s", agent.name, kind, payload)
        for listener in list(self.listeners):
            try:
                listener(agent, kind, payload, limit)
            except Exception:  # one failing listener must not keep the limit from the others
                log.warning("a limit listener failed", exc_info=True)

    def _reached(self, agent: LiveAgent, event: ProviderEvent) -> None:
        assert event.limit is not None
        report = event.limit
        state: LimitState = "cut" if event.kind == "limit_reached" else "retrying"
        before = limit_of(agent)
        if before is not None and (before.state, before.resets_at, before.retry_at, before.kind) == (
            state,
            report.resets_at,
            report.retry_at,
            report.kind,
        ):
            return  # the same limit told again (a second source, a redraw): one step
        limit = AgentLimit(
            kind=report.kind,
            state=state,
            resets_at=report.resets_at,
            retry_at=report.retry_at,
            message=report.message,
            source=event.evidence.source,
            rule=event.evidence.rule,
            reached_at=now_iso(),
        )
        self.store(agent, limit)
        payload = limit.model_dump(include={"kind", "state", "resets_at", "retry_at", "message", "source", "rule"})
        self.step(agent, event.kind, {"limit": payload}, limit)

    def _resumed(self, agent: LiveAgent, limit: AgentLimit, event: ProviderEvent) -> None:
        by = self._resuming.get(agent.uuid) or ("cli" if limit.state == "retrying" else "other")
        self.store(agent, None)
        payload = {
            "by": by,
            "limit": _summary(limit),
            "attempts": limit.attempts,
            "evidence": {"source": event.evidence.source, "event": event.kind, "rule": event.evidence.rule},
        }
        self.step(agent, "limit_resumed", payload, None)


def _summary(limit: AgentLimit) -> dict[str, Any]:
    """What a step after the first says of its limit."""
    return {"kind": limit.kind, "resets_at": limit.resets_at, "reached_at": limit.reached_at}
