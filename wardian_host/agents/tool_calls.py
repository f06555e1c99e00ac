"""The tool calls providers report, recorded in state.db's audit log beside status changes.

A provider's structured sources (hooks, session files, event streams) name the tool of a
call in the event's data: `tool_name` (the hook payloads' field, `wardian_core.parsing.
hook_payloads.tool_data`) or `tool` (OpenCode's parts). Screen looks are not recorded: what a
screen shows is a guess at a tool, and it is drawn many times over. The host's pruning bounds
these rows as it bounds the status changes (`wardian_core.db.events.prune_events`).
"""

import logging
import sqlite3
from typing import Any

from wardian_core.db.events import add_tool_call
from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.provider_models import PTY_SOURCE, ProviderEvent

log = logging.getLogger(__name__)

TOOL_FIELDS = ("tool_name", "tool")
# What the record keeps of the event's data besides the tool: ids and states, never the input,
# which can be a whole file (the evidence line, at most 300 characters, summarises it).
KEPT_FIELDS = ("tool_use_id", "status")


def tool_call(event: ProviderEvent) -> dict[str, Any] | None:
    """What to record of `event`, or None when it reports no tool call from a structured source."""
    tool = next((event.data[key] for key in TOOL_FIELDS if isinstance(event.data.get(key), str)), None)
    if not tool or event.evidence.source == PTY_SOURCE.name:
        return None
    call: dict[str, Any] = {"tool": tool, "event": event.kind, "source": event.evidence.source}
    call["rule"] = event.evidence.rule
    if event.evidence.line:
        call["line"] = event.evidence.line
    return call | {key: event.data[key] for key in KEPT_FIELDS if isinstance(event.data.get(key), str)}


class ToolCallLog:
    """Records each agent's tool calls; one reported again unchanged (a stream's repeated update
    of a running tool) is recorded once."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._latest: dict[str, dict[str, Any]] = {}

    def record(self, agent_uuid: str, event: ProviderEvent) -> None:
        call = tool_call(event)
        if call is None or self._latest.get(agent_uuid) == call:
            return
        self._latest[agent_uuid] = call
        try:
            add_tool_call(self._conn, agent_uuid, call)
        except sqlite3.IntegrityError:
            pass  # the agent was deleted while its parser still reported
        except sqlite3.OperationalError as exc:
            if not cannot_write_now(exc):
                raise
            # An audit row is not worth holding the agent's status writes back: it is dropped.
            log.warning("tool call of agent %s not recorded: %s", agent_uuid, exc)
