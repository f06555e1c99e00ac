"""The usage providers report (`usage_reported`), kept in state.db's usage table.

A turn read again (a host killed before it recorded how far it read a source, a CLI that
writes a record twice) is stored once: the table's `(agent, turn_key)` is unique. Readers (`agent show --fields
usage`, `wardian usage`, the web view's page state) read the table: an agent's watched events
stay its status changes and requests.
"""

import logging
import sqlite3

from wardian_core.clock import iso_days_ago
from wardian_core.db.events import KEEP_DAYS
from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.db.usage import add_usage
from wardian_core.provider_models import ProviderEvent
from wardian_host.agents.live_agent import LiveAgent

log = logging.getLogger(__name__)


class UsageLog:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def record(self, agent: LiveAgent, event: ProviderEvent) -> None:
        if event.usage is None or self._pruned_already(event.usage.recorded_at):
            return
        report = event.usage.model_dump(mode="json")
        evidence = event.evidence.model_dump(exclude_none=True)
        try:
            # The CLI's own time of the record: a turn read again keeps the day it happened.
            add_usage(self._conn, agent.uuid, report, evidence, event.usage.recorded_at)
        except sqlite3.IntegrityError:
            return  # the agent was deleted while its parser still reported
        except sqlite3.OperationalError as exc:
            if not cannot_write_now(exc):
                raise
            # Figures are not worth holding the agent's status writes back: the turn is dropped.
            log.warning("usage of agent %s not recorded: %s", agent.uuid, exc)

    @staticmethod
    def _pruned_already(recorded_at: str | None) -> bool:
        """A record older than the table keeps (a long session's log read again after a restart)
        was counted, then pruned: stored again it would count twice."""
        return recorded_at is not None and recorded_at < iso_days_ago(KEEP_DAYS)
