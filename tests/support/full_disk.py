"""A full disk for state.db, injected where SQLite reports it: writes fail with SQLITE_FULL.

The same failure a size-limited tmpfs home gives (`database or disk is full`), without
root or a mount: a connection whose INSERT, UPDATE and DELETE statements raise it while
`is_full()` says so. Tests in this process use `failing(factory, is_full)`; a test's
`wardian` processes (its host) load it through `full_disk_site/sitecustomize.py` on
PYTHONPATH, full while the file named by WARDIAN_TEST_FULL_DISK exists. A flag file that
names something (`process_identity`) fails only the writes whose statement names it: a real
full disk takes some writes and not others (SQLite reuses the space of a checkpointed WAL).
"""

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

FLAG_VARIABLE = "WARDIAN_TEST_FULL_DISK"
SITE = Path(__file__).resolve().parent / "full_disk_site"
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def full_disk_error() -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = sqlite3.SQLITE_FULL
    error.sqlite_errorname = "SQLITE_FULL"
    return error


def failing(
    factory: type[sqlite3.Connection], is_full: Callable[[], bool], refused: Callable[[str], bool] = lambda sql: True
) -> type[sqlite3.Connection]:
    """`factory`'s connections, whose writes (those `refused` names) fail while `is_full()`."""

    class FullDisk(factory):  # type: ignore[valid-type,misc]  # a class made from a runtime type
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if is_full() and sql.lstrip().upper().startswith(_WRITES) and refused(sql):
                raise full_disk_error()
            cursor: sqlite3.Cursor = super().execute(sql, *args)
            return cursor

    return FullDisk


def install_from_environment() -> None:
    """Every sqlite3.connect of this process: full while the flag file exists."""
    flag = os.environ.get(FLAG_VARIABLE)
    if not flag:
        return
    connect = sqlite3.connect

    def connect_on_a_full_disk(
        *args: Any, factory: type[sqlite3.Connection] = sqlite3.Connection, **kwargs: Any
    ) -> Any:
        full = failing(factory, lambda: os.path.exists(flag), lambda sql: _names(flag, sql))
        return connect(*args, factory=full, **kwargs)

    sqlite3.connect = connect_on_a_full_disk  # the point of the injection


def _names(flag: str, sql: str) -> bool:
    """The flag file names nothing, or something `sql` names."""
    try:
        with open(flag, encoding="utf-8") as file:
            named = file.read().strip()
    except FileNotFoundError:
        return False
    return not named or named in sql
