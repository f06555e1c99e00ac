"""The host's state.db connection, which keeps the agent writes the file cannot take yet.

An agent's state must follow its process even while state.db cannot be written (a full
disk, an I/O error): a status or process write that fails so is kept, in order, and
replayed before the next write through the same connection or when the host retries
(`flush`), so the file catches up once space returns. Only a connection someone retries
(`on_kept` set: the host's) keeps writes. `agents.get_agent` applies the kept writes to
the row it reads, so a row re-read after a write agrees with the write. Writes of
anything else still fail at once. If the host stops with writes still kept, the next
host's recovery derives the same state from the processes themselves.
"""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

# "The file cannot grow or be written right now"; extended codes add bits above the low byte.
_RETRYABLE_CODES = frozenset({sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR})


def _log() -> "logging.Logger":
    # Only the host keeps writes; the CLI reads rows through this module and starts faster without logging.
    import logging

    return logging.getLogger(__name__)


def cannot_write_now(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None and code & 0xFF in _RETRYABLE_CODES


@dataclass
class KeptWrite:
    agent_uuid: str
    columns: dict[str, Any]  # the agent's columns as the write leaves them
    run: Callable[[], None]


class WriterConnection(sqlite3.Connection):
    """state.db as the host writes it, holding the agent writes the file could not take yet."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept: list[KeptWrite] = []
        # Set by whoever retries (the host's timer); writes are kept only when it is set,
        # so a short-lived writer (a CLI command) fails at once instead of losing a write.
        self.on_kept: Callable[[], None] | None = None


def write(conn: sqlite3.Connection, change: KeptWrite) -> bool:
    """Run `change` now, or keep it when state.db cannot be written; True when it was written."""
    if not isinstance(conn, WriterConnection) or conn.on_kept is None:  # nobody would retry: fail now
        change.run()
        return True
    if conn.kept and not flush(conn):
        _keep(conn, change, "earlier writes are still waiting")
        return False
    try:
        change.run()
    except sqlite3.OperationalError as exc:
        if not cannot_write_now(exc):
            raise
        _keep(conn, change, str(exc))
        return False
    return True


def _keep(conn: WriterConnection, change: KeptWrite, why: str) -> None:
    conn.kept.append(change)
    _log().warning("state.db cannot be written (%s): %d agent write(s) kept for a retry", why, len(conn.kept))
    if conn.on_kept is not None:
        conn.on_kept()


def flush(conn: sqlite3.Connection) -> bool:
    """Replay the kept writes in order; True once none is left."""
    if not isinstance(conn, WriterConnection) or not conn.kept:
        return True
    while conn.kept:
        change = conn.kept[0]
        try:
            change.run()
        except sqlite3.Error as exc:
            if cannot_write_now(exc):
                return False
            _log().error("state.db: a kept write of agent %s is dropped: %s", change.agent_uuid, exc)
        conn.kept.pop(0)
    _log().warning("state.db caught up with the kept writes")
    return True


def pending(conn: sqlite3.Connection) -> int:
    return len(conn.kept) if isinstance(conn, WriterConnection) else 0


def overlay(conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """`row` as state.db will hold it once the kept writes land."""
    if isinstance(conn, WriterConnection):
        for change in conn.kept:
            if change.agent_uuid == row["uuid"]:
                row.update(change.columns)
    return row
