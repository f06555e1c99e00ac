"""Opening state.db for reading (the CLI) or writing (the host, tests' seeding)."""

import os
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


def is_corrupt(exc: sqlite3.Error) -> bool:
    """SQLite says the file is damaged, not merely busy, read-only or missing."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def corrupt(db_path: Path, reason: str) -> WardianError:
    """The refusal of a damaged state.db; the hint moves it aside, never deletes it."""
    import shlex  # only a refusal quotes: kept off the CLI's read path

    damaged = db_path.with_name(db_path.name + ".damaged")
    original, kept = shlex.quote(str(db_path)), shlex.quote(str(damaged))
    return WardianError(
        "state_corrupt",
        f"state.db is damaged: {reason}",
        f"Stop the host (`wardian host stop`) and move the damaged file aside, keeping it: `mv {original} {kept}` "
        "(its -wal and -shm files too, if present). The next `wardian agent spawn` starts a new state.db; the "
        "agents the damaged one held must be spawned again. Do not delete the damaged file: the rows it can "
        f"still give are salvaged with sqlite3's `.recover` (`sqlite3 {kept} .recover`).",
        {"path": str(db_path), "move_to": str(damaged)},
    )


def is_locked(exc: sqlite3.Error) -> bool:
    """Another connection held state.db for longer than the busy timeout: nothing is wrong with the file."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def locked(db_path: Path, exc: sqlite3.Error) -> WardianError:
    import shlex  # only a refusal quotes: kept off the CLI's read path

    return WardianError(
        "db_unavailable",
        f"state.db is locked by another process ({exc}) and stayed so for {BUSY_TIMEOUT_MS / 1000:g} s",
        "Another program holds it busy: a `sqlite3` shell inside a transaction or with "
        "`PRAGMA locking_mode=EXCLUSIVE`, a backup or sync tool copying it. End that, then retry; "
        f"`fuser {shlex.quote(str(db_path))}` lists the processes that have it open.",
        {"path": str(db_path), "reason": "locked"},
    )


def _damaged_or_unavailable(db_path: Path, exc: sqlite3.DatabaseError, hint: str) -> WardianError:
    if is_corrupt(exc):
        return corrupt(db_path, str(exc))
    if is_locked(exc):
        return locked(db_path, exc)
    return _unavailable(db_path, f"state.db is unreadable: {exc}", hint)


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


def _refuse_damaged(conn: sqlite3.Connection, db_path: Path) -> None:
    """A writer on a damaged file would fail later mid-way (a host crash) or spread the damage:
    check every page once at opening (about 0.15 s for 120 MB)."""
    problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
    if problems != ["ok"]:
        conn.close()
        raise corrupt(db_path, "; ".join(problems))


def _connect(
    target: str, db_path: Path, *, uri: bool, factory: type[sqlite3.Connection] = sqlite3.Connection
) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, factory=factory)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return conn
    except sqlite3.Error as exc:
        raise _unavailable(db_path, f"cannot open state.db: {exc}", "Check the file's permissions.") from exc


def _create_private(db_path: Path) -> None:
    """Create a missing state.db 0600 before SQLite does: it would follow the umask (0644), and
    its -wal and -shm files take the database's mode. SQLite follows links: one planted in
    their place is refused, so the host's writes cannot land elsewhere."""
    from wardian_core.atomic_files import planted_link  # tempfile and shutil: writers only

    for path in (db_path, db_path.with_name(db_path.name + "-wal"), db_path.with_name(db_path.name + "-shm")):
        if os.path.islink(path):
            raise planted_link(path)
    try:
        os.close(os.open(db_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, paths.PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
    except OSError as exc:
        raise _unavailable(db_path, f"cannot create state.db: {exc.strerror}", "Check the home's permissions.") from exc


def _is_empty_file(db_path: Path) -> bool:
    """An existing state.db of 0 bytes (a missing one is simply new)."""
    try:
        return os.stat(db_path).st_size == 0
    except FileNotFoundError:
        return False


def open_writer(home: Path) -> sqlite3.Connection:
    """Open (creating if needed) state.db in WAL mode at the current schema."""
    # The writes kept while the disk is full are the host's: the CLI's readers never load them.
    from wardian_core.db.kept_writes import WriterConnection

    db_path = paths.state_db(paths.ensure_home(home))
    if _is_empty_file(db_path):
        from wardian_core.db.empty_file import leave_notice  # its model's pydantic only on this rare path

        try:
            leave_notice(home, db_path)  # SQLite would take it as new without a word
        except OSError as exc:
            raise _unavailable(
                db_path, f"state.db is empty and cannot be noted so: {exc.strerror}", "Check the home and the disk."
            ) from exc
    _create_private(db_path)
    conn = _connect(str(db_path), db_path, uri=False, factory=WriterConnection)
    try:
        # The version check comes before any pragma that writes the file header.
        _refuse_newer_schema(conn, db_path)
        _refuse_damaged(conn, db_path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _damaged_or_unavailable(db_path, exc, "Check the file's permissions and the disk.") from exc
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
        raise _damaged_or_unavailable(db_path, exc, "Check the file's permissions.") from exc
    if version < CURRENT_VERSION:
        conn.close()
        open_writer(home).close()
        conn = _connect(db_path.as_uri() + "?mode=ro", db_path, uri=True)
    return conn


@contextmanager
def reading(home: Path) -> Iterator[sqlite3.Connection]:
    """A reader whose queries report a damaged or locked file as an error envelope, not as a traceback."""
    conn = open_reader(home)
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        if is_corrupt(exc) or is_locked(exc):
            raise _damaged_or_unavailable(paths.state_db(home), exc, "") from exc
        raise
    finally:
        conn.close()


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
