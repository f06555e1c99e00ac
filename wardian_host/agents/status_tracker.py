"""Turns provider events into statuses, the same way for every provider.

A status is stored only when it changes, with its evidence; listeners (waiting
CLIs) are woken by the change itself, never by polling.
"""

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from wardian_core.db import agents as agent_rows
from wardian_core.provider_models import ProviderEvent
from wardian_core.status_rules import next_status, status_before_dialog
from wardian_core.statuses import Status
from wardian_host.agents.limits import LimitRecord
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.mcp_readiness import READY_BOUND_SECONDS, McpReadiness
from wardian_host.agents.tool_calls import ToolCallLog
from wardian_host.agents.usage_log import UsageLog

log = logging.getLogger(__name__)

# Told of every stored change: (agent, previous status, new status, the event that made it, if any).
StatusObserver = Callable[[LiveAgent, Status, Status, ProviderEvent | None], None]


class StatusTracker:
    def __init__(
        self, conn: sqlite3.Connection, observers: StatusObserver, mcp_ready_bound: float = READY_BOUND_SECONDS
    ) -> None:
        self._conn = conn
        self._observers = observers
        self._tool_calls = ToolCallLog(conn)
        self._usage = UsageLog(conn)
        # Told of each agent whose turn figures were just stored (its budget is checked).
        self.usage_observers: list[Callable[[LiveAgent], None]] = []
        self.limits = LimitRecord(conn)
        self.mcp_readiness = McpReadiness(self._ready, mcp_ready_bound)

    def apply_event(self, agent: LiveAgent, event: ProviderEvent) -> None:
        for listener in list(agent.provider_event_listeners):
            listener(event)
        self._tool_calls.record(agent.uuid, event)
        self._usage.record(agent, event)
        if event.usage is not None:
            for observer in list(self.usage_observers):
                observer(agent)
        if event.kind == "session_started" and event.session_id:
            self._store_session_id(agent, event.session_id)
        if agent.turn_end.late(event.kind, event.turn):
            log.debug("agent %s: %s of turn %s, which has ended: no change", agent.name, event.kind, event.turn)
            return
        self.limits.apply_event(agent, event)
        target = next_status(agent.status, event.kind, agent.status_before_dialog)
        if target is None and not self._another_dialog(agent, event):
            return
        evidence: dict[str, Any] = {"source": event.evidence.source, "event": event.kind, "rule": event.evidence.rule}
        if event.turn:
            evidence["turn"] = event.turn  # how the next host knows which turn has ended
        if event.evidence.line:
            evidence["line"] = event.evidence.line
        if event.message:
            evidence["message"] = event.message
        if event.reason:
            # Which dialog is open decides the keys `send --approval` types (the input profile's).
            evidence |= {"reason": event.reason, "dialog": event.dialog}
        if event.answer:
            evidence["answer"] = event.answer
        if target == "idle" and event.without_mcp:
            evidence |= self.mcp_readiness.declined(agent, event.without_mcp)
        if target is None:
            self._replace_dialog(agent, evidence)
        elif not (target == "idle" and self.mcp_readiness.holds(agent, evidence, event)):
            self.set_status(agent, target, evidence, event)

    def _ready(self, agent: LiveAgent, evidence: dict[str, Any], event: ProviderEvent | None) -> None:
        self.set_status(agent, "idle", evidence, event)

    @staticmethod
    def _another_dialog(agent: LiveAgent, event: ProviderEvent) -> bool:
        """A dialog that replaced the open one: the status stays, what answers it does not."""
        return (
            event.kind == "approval_requested"
            and agent.status == "action_required"
            and (agent.status_evidence or {}).get("dialog") != event.dialog
        )

    def _replace_dialog(self, agent: LiveAgent, evidence: dict[str, Any]) -> None:
        agent_rows.update_columns(self._conn, agent.uuid, status_evidence=json.dumps(evidence))
        agent.status_evidence = evidence
        agent.dialog_opened_at = time.monotonic()
        log.info("agent %s: another dialog (%s)", agent.name, evidence)
        self._notify(agent)

    def set_status(
        self, agent: LiveAgent, status: Status, evidence: dict[str, Any], event: ProviderEvent | None = None
    ) -> bool:
        previous = agent.status
        if not agent_rows.record_status(self._conn, agent.uuid, status, evidence=evidence):
            return False
        changed_at = agent_rows.status_time(self._conn, agent.uuid)
        agent.row = agent.row | {"status": status, "is_off": int(status == "off"), "last_status_at": changed_at}
        agent.status_evidence = evidence
        agent.status_before_dialog = status_before_dialog(agent.status_before_dialog, previous, status)
        agent.dialog_opened_at = time.monotonic() if status == "action_required" else None
        agent.log_event("status", {"from": previous, "to": status, "evidence": evidence}, changed_at)
        if status in ("off", "error"):
            self.limits.agent_ended(agent, status)
        log.info("agent %s: %s -> %s (%s)", agent.name, previous, status, evidence)
        self._notify(agent)
        self._observers(agent, previous, status, event)
        return True

    @staticmethod
    def _notify(agent: LiveAgent) -> None:
        """Wake whoever waits on the agent: a new status, or a new dialog in the same one."""
        for listener in list(agent.listeners):
            listener(agent, agent.status)

    def _store_session_id(self, agent: LiveAgent, session_id: str) -> None:
        if agent.row["provider_session_id"] == session_id:
            return
        agent_rows.update_columns(self._conn, agent.uuid, provider_session_id=session_id)
        agent.row = agent.row | {"provider_session_id": session_id}
