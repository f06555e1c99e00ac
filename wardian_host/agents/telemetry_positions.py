"""A launch's telemetry read positions, kept in state.db for the host that adopts it next.

The feed tells the book each source's position as it reads (`OutputFeed`'s PositionBook);
the book writes the latest of each once per turn of the loop, so a burst of lines costs
one write. A position is written after the events of the lines it covers were handled:
a host killed in between reads those lines again, and an event seen twice changes no
status twice (and usage is stored once per turn). A new launch forgets the agent's
positions; an adopting host loads those of the launch's pid.
"""

import asyncio
import logging
import sqlite3
from collections.abc import Callable

from pydantic import ValidationError

from wardian_core.db import telemetry_positions as rows
from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.telemetry_positions import POSITION, FilePosition, FolderPosition

log = logging.getLogger(__name__)

Position = FilePosition | FolderPosition


class LaunchPositions:
    def __init__(
        self, conn: sqlite3.Connection, agent_uuid: str, launch_pid: int, saved: dict[str, Position] | None = None
    ) -> None:
        self._conn = conn
        self._agent_uuid = agent_uuid
        self._launch_pid = launch_pid
        self._saved = saved or {}
        self._pending: dict[str, Position] = {}
        self._flush_soon: asyncio.Handle | None = None

    @classmethod
    def fresh(cls, conn: sqlite3.Connection, agent_uuid: str, launch_pid: int) -> "LaunchPositions":
        """A new launch: its sources start by their normal start, the last launch's positions gone."""
        _written(lambda: rows.forget(conn, agent_uuid), agent_uuid)
        return cls(conn, agent_uuid, launch_pid)

    @classmethod
    def adopted(cls, conn: sqlite3.Connection, agent_uuid: str, launch_pid: int) -> "LaunchPositions":
        """A launch a previous host began: its sources go on from the positions it recorded."""
        saved: dict[str, Position] = {}
        for key, text in rows.saved(conn, agent_uuid, launch_pid).items():
            try:
                saved[key] = POSITION.validate_json(text)
            except ValidationError:  # written by another Wardian: that source starts afresh
                log.warning("agent %s: unreadable telemetry position of %s", agent_uuid, key)
        return cls(conn, agent_uuid, launch_pid, saved)

    def saved(self, key: str) -> Position | None:
        """Where to open the source: the latest position read in this launch (a source named again
        after it was dropped goes on too), else none."""
        return self._saved.get(key)

    def record(self, key: str, position: Position) -> None:
        self._saved[key] = self._pending[key] = position
        if self._flush_soon is None:
            self._flush_soon = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._flush_soon = None
        pending, self._pending = self._pending, {}
        if pending:
            texts = {key: position.model_dump_json() for key, position in pending.items()}
            _written(lambda: rows.record(self._conn, self._agent_uuid, self._launch_pid, texts), self._agent_uuid)


def _written(write: Callable[[], None], agent_uuid: str) -> None:
    try:
        write()
    except sqlite3.IntegrityError:
        return  # the agent was deleted while its sources were still read
    except sqlite3.ProgrammingError:
        return  # state.db is closed: the host is stopping, and the next one reads those lines again
    except sqlite3.OperationalError as exc:
        if not cannot_write_now(exc):
            raise
        # A position not kept costs a re-read after a restart, not a wrong status: not worth a retry.
        log.warning("telemetry positions of agent %s not recorded: %s", agent_uuid, exc)
