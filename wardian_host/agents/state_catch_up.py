"""Retrying the agent writes state.db could not take (a full disk) until they land.

The host's connection keeps such writes (`wardian_core.db.kept_writes`) only because
this retries them: every few seconds while any is kept, and once more before the host
closes the file.
"""

import asyncio
import sqlite3

from wardian_core.db import kept_writes
from wardian_core.db.kept_writes import WriterConnection

RETRY_SECONDS = 5.0


class StateCatchUp:
    def __init__(self, conn: sqlite3.Connection, retry_seconds: float = RETRY_SECONDS) -> None:
        self._conn = conn
        self._retry_seconds = retry_seconds
        self._timer: asyncio.TimerHandle | None = None
        if isinstance(conn, WriterConnection):
            conn.on_kept = self._schedule

    def _schedule(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._retry_seconds, self._retry)

    def _retry(self) -> None:
        self._timer = None
        if not kept_writes.flush(self._conn):
            self._schedule()

    def flush(self) -> bool:
        """One last attempt (the host is stopping); True when state.db holds every write."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return kept_writes.flush(self._conn)
