"""A write the disk refused, told apart from a bug: `write_failed` with a hint, not `request_failed`.

A full or read-only home fails a request wherever it writes first: state.db (SQLite says
the database or disk is full, or read-only) or a file of the agent's folder (an OSError).
"""

import errno
import sqlite3
from pathlib import Path

from wardian_core import paths
from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.errors import WardianError, write_failed

_REFUSED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})


def as_write_failed(exc: BaseException, home: Path) -> WardianError | None:
    """`write_failed` for a write the file system refused, else None (the failure is something else)."""
    if isinstance(exc, OSError) and exc.errno in _REFUSED:
        return write_failed(Path(exc.filename) if exc.filename else home, exc)
    if isinstance(exc, sqlite3.Error) and _disk_refused(exc):
        full = getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_FULL
        refusal = OSError(errno.ENOSPC if full else errno.EROFS, str(exc))
        return write_failed(paths.state_db(home), refusal)
    return None


def _disk_refused(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return cannot_write_now(exc) or (code is not None and code & 0xFF == sqlite3.SQLITE_READONLY)
