"""A home only its owner can read: what agents printed lands in state.db and the host's log.

A new home is made 0700 and its files 0600 where they are created; a home made by an
older Wardian (0755, files 0644) is tightened here when a host starts for it. Only the
home, its logs and run folders and the files that carry agents' output are changed: with
the home at 0700 nobody else can reach anything below it.
"""

import logging.handlers
import os
import stat
from io import TextIOWrapper
from pathlib import Path

from wardian_core import paths
from wardian_core.atomic_files import open_unfollowed


def tighten(home: Path) -> list[str]:
    """Make the home and its sensitive files owner-only; what could not be changed, and why."""
    logs = paths.logs_dir(home)
    db = paths.state_db(home)
    targets = [
        (home, paths.PRIVATE_DIR_MODE),
        (logs, paths.PRIVATE_DIR_MODE),
        (paths.run_dir(home), paths.PRIVATE_DIR_MODE),
    ]
    files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"), paths.settings_file(home)]
    files += sorted(logs.glob("*.log*")) if logs.is_dir() else []
    targets += [(path, paths.PRIVATE_FILE_MODE) for path in files]
    problems = []
    for path, mode in targets:
        try:
            _restrict(path, mode, follow=path == home)
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
    return problems


def _restrict(path: Path, mode: int, follow: bool) -> None:
    """Drop the group's and others' bits; a link inside the home is left alone (chmod would
    change its target, which may be anything)."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        return
    current = stat.S_IMODE(info.st_mode)
    if current & ~mode:
        os.chmod(path, current & mode)


class PrivateLogHandler(logging.handlers.RotatingFileHandler):
    """The host's log, and each file rotation starts, created 0600 whatever the umask, never
    opened through a link."""

    def _open(self) -> TextIOWrapper:
        return open(  # logging owns the stream and closes it
            self.baseFilename,
            "a",  # what a rotating handler always uses
            encoding=self.encoding,
            errors=self.errors,
            opener=lambda path, flags: open_unfollowed(path, flags, paths.PRIVATE_FILE_MODE),
        )
