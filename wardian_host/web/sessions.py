"""`run/web-sessions.json`: the view's sessions, kept across a host restart so that open pages
come back live on the next host without a new login.

Only a SHA-256 digest of each session is written, with when it was last used: whoever reads
the file (an agent runs as the same user) learns no cookie from it, since a cookie is the
digest's preimage, 32 random bytes. The file is owner-only and replaced in one step.
"""

import hashlib
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from wardian_core import paths
from wardian_core.atomic_files import replace_file
from wardian_host.web.models import KeptSessions

SESSIONS_NAME = "web-sessions.json"


def digest(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


def sessions_path(home: Path) -> Path:
    return paths.run_dir(home) / SESSIONS_NAME


def read_sessions(home: Path) -> dict[str, float]:
    """Each kept session's digest and when it was last used (seconds since the epoch); none when
    the file is missing or not this format."""
    try:
        return KeptSessions.model_validate_json(sessions_path(home).read_text(encoding="utf-8")).sessions
    except (OSError, ValidationError):
        return {}


def write_sessions(home: Path, sessions: Mapping[str, float]) -> None:
    replace_file(sessions_path(home), KeptSessions(sessions=dict(sessions)).model_dump_json())
