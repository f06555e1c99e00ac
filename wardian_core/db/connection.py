"""Opening state.db for reading (the CLI) or writing (the host, tests' seeding)."""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wardian_core import paths
from wardian_core.db.migrations import CURRENT_VERSION, migrate, schema_version
from wardian_core.errors import WardianError

BUSY_TIMEOUT_MS = 5000


def _unavailable(db_path: Path, message: str, hint: str) -> WardianError:
    return WardianError("db_unavailable", message, hint, {"path": str(db_path)})


def _refuse_newer_schema(conn: sqlite3.Connection, db_path: Path) -> int:
    version = schema_version(conn)
    if version > CURRENT_VERSION:
        conn.close()
        raise _unavailable(
            db_path,
            f"state.db has schema version {version}, newer than this Wardian knows ({CURRENT_VERSION})",
            "Upgrade Wardian (pip install -U wardian); the database was left untouched.",
        )
    return version


def _connect(target: str, db_path: Path, *, uri: bool) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return conn
    except sqlite3.Error as exc:
        raise _unavailable(db_path, f"cannot open state.db: {exc}", "Check the file's permissions.") from exc


def open_writer(home: Path) -> sqlite3.Connection:
    """Open (creating if needed) state.db in WAL mode at the current schema."""
    db_path = paths.state_db(home)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = _connect(str(db_path), db_path, uri=False)
    try:
        # The version check comes before any pragma that writes the file header.
        _refuse_newer_schema(conn, db_path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _unavailable(
            db_path, f"state.db is unreadable: {exc}", "Move the damaged file aside; Wardian will create a new one."
        ) from exc
    return conn


def open_reader(home: Path) -> sqlite3.Connection:
    """Open state.db read-only; an older schema is migrated first through a writer."""
    db_path = paths.state_db(home)
    if not db_path.is_file():
        raise _unavailable(
            db_path,
            f"no state.db in {home}",
            "No agent has been created in this WARDIAN_HOME yet: start one with `wardian agent spawn`, "
            "or point WARDIAN_HOME at the right home.",
        )
    conn = _connect(db_path.as_uri() + "?mode=ro", db_path, uri=True)
    try:
        version = _refuse_newer_schema(conn, db_path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _unavailable(db_path, f"state.db is unreadable: {exc}", "Move the damaged file aside.") from exc
    if version < CURRENT_VERSION:
        conn.close()
        open_writer(home).close()
        conn = _connect(db_path.as_uri() + "?mode=ro", db_path, uri=True)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """An IMMEDIATE transaction: writers queue on the busy timeout instead of failing mid-way."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
