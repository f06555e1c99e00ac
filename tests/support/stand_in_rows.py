"""Whole `agents` rows for tests that hold a LiveAgent with no state.db behind it.

A test names only the fields it is about; the rest are those of a generic agent never started,
so the row has every field the host may read (AgentRow), not just the ones the test thought of.
"""

from wardian_core.db.agents import AgentRow
from wardian_core.statuses import Status


def stand_in_row(
    *, uuid: str = "u-1", name: str = "a1", status: Status = "idle", launch_config: str | None = None
) -> AgentRow:
    return {
        "uuid": uuid,
        "name": name,
        "class": "Coder",
        "provider": "generic",
        "workspace": None,
        "description": None,
        "status": status,
        "pid": None,
        "started_at": None,
        "last_status_at": None,
        "provider_session_id": None,
        "is_off": 0,
        "created_at": "2026-01-01T00:00:00+00:00",
        "status_evidence": None,
        "launch_config": launch_config,
        "provider_settings": None,
        "process_identity": None,
        "worktree": None,
        "worktree_folder": None,
        "branch": None,
        "limit": None,
    }
