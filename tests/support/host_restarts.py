"""A host taken away under running agents, as a person's `kill -9` would: the terminal server
keeps their terminals for the next host (issue 32's real-CLI restart tests)."""

import os
import signal
from pathlib import Path

from wardian_core.db.connection import reading
from wardian_core.db.events import list_events
from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone


def crash_host(home: Path) -> int:
    """`kill -9` of the home's host; its pid, once it is gone."""
    pid = running_host_pid(home)
    assert pid is not None, f"no host runs for {home}"
    os.kill(pid, signal.SIGKILL)
    assert wait_until_gone(pid, 30), f"host {pid} outlived kill -9"
    return pid


def status_changes(home: Path, uuid: str) -> list[tuple[str, str | None]]:
    """(to, event) of every status change state.db kept for the agent, across every host it had
    (a host's `agent watch` shows only the changes it saw itself)."""
    with reading(home) as conn:
        changes = [event["payload"] for event in list_events(conn, uuid) if event["kind"] == "status"]
    return [(change["to"], change["evidence"].get("event")) for change in changes]
