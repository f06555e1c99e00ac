"""A state.db found empty (0 bytes): used as a new database, and said so once.

SQLite reads a 0-byte file as an empty database, so a state.db truncated by a crash during a
copy, a sync tool or a full disk lost every agent it held without a word. The writer that
finds one (the host, or a CLI migrating it first) leaves a notice under `run/`; the host
takes it at start, logs it once and shows it in `host status` while it runs.
"""

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from wardian_core import paths
from wardian_core.atomic_files import make_folders, replace_file
from wardian_core.clock import now_iso

NOTICE_FILE = "state-db-found-empty.json"


class EmptyStateDb(BaseModel):
    """What `host status` says under `state_db_notice`."""

    model_config = ConfigDict(extra="forbid")

    found_at: str
    path: str
    message: str


def leave_notice(home: Path, db_path: Path) -> None:
    notice = EmptyStateDb(
        found_at=now_iso(),
        path=str(db_path),
        message=(
            f"{db_path} was empty (0 bytes) and was started as a new database: the agents, asks and "
            "workflow runs it may have held are not in it. If it was truncated (a crash, a copy or "
            "sync tool, a full disk), restore it from a backup while the host is stopped."
        ),
    )
    replace_file(make_folders(home, "run") / NOTICE_FILE, notice.model_dump_json())


def take_notice(home: Path) -> EmptyStateDb | None:
    """The notice a writer left, removed as it is read, so it is said once."""
    path = paths.run_dir(home) / NOTICE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    path.unlink(missing_ok=True)
    try:
        return EmptyStateDb.model_validate(json.loads(text))
    except (ValueError, ValidationError):  # a notice damaged in its turn still says what happened
        return EmptyStateDb(found_at="", path=str(paths.state_db(home)), message="state.db was found empty (0 bytes)")
