"""The usage providers report (`usage_reported`), kept in state.db's usage table.

A turn read again (a host restart re-reads a source from its start, a CLI writes a record
twice) is stored once: the table's `(agent, turn_key)` is unique. Readers (`agent show --fields
usage`, `wardian usage`, the web view's page state) read the table: an agent's watched events
stay its status changes and requests.
"""

import logging
import sqlite3

from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.db.usage import add_usage
from wardian_core.provider_models import ProviderEvent
from wardian_host.agents.live_agent import LiveAgent

log = logging.getLogger(__name__)


class UsageLog:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def record(self, agent: LiveAgent, event: ProviderEvent) -> None:
        if event.usage is None:
            return
        report = event.usage.model_dump(mode="json")
        evidence = event.evidence.model_dump(exclude_none=True)
        try:
            add_usage(self._conn, agent.uuid, report, evidence)
        except sqlite3.IntegrityError:
            return  # the agent was deleted while its parser still reported
        except sqlite3.OperationalError as exc:
            if not cannot_write_now(exc):
                raise
            # Figures are not worth holding the agent's status writes back: the turn is dropped.
            log.warning("usage of agent %s not recorded: %s", agent.uuid, exc)
