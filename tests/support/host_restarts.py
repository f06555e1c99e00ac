"""A host taken away under running agents, as a person's `kill -9` would: the terminal server
keeps their terminals for the next host (issue 32's real-CLI restart tests)."""

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from wardian_core.db import telemetry_positions
from wardian_core.db.connection import reading
from wardian_core.db.events import list_events
from wardian_core.errors import WardianError
from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone


def crash_host(home: Path) -> int:
    """`kill -9` of the home's host; its pid, once it is gone."""
    pid = running_host_pid(home)
    assert pid is not None, f"no host runs for {home}"
    os.kill(pid, signal.SIGKILL)
    assert wait_until_gone(pid, 30), f"host {pid} outlived kill -9"
    return pid


def next_host(home: Path, old: int, timeout: float = 60) -> int:
    """The pid of the host that follows `old` once it serves (a `host restart` that ran out of time
    starts it, to serve once `old` is gone; it has no event a test can await from outside, so this
    looks every 50 ms)."""
    from wardian_core.control.client import ControlClient

    assert wait_until_gone(old, timeout), f"host {old} is still stopping"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = running_host_pid(home)
        if pid is not None and pid != old:
            try:
                with ControlClient.connect(home) as client:
                    return int(client.request("host.status", None, 10)["pid"])
            except WardianError:
                pass  # still starting
        time.sleep(0.05)
    raise AssertionError(f"no host followed host {old} within {timeout} s")


def _stored_changes(home: Path, uuid: str) -> list[dict[str, Any]]:
    with reading(home) as conn:
        return [event["payload"] for event in list_events(conn, uuid) if event["kind"] == "status"]


def status_changes(home: Path, uuid: str) -> list[tuple[str, str | None]]:
    """(to, event) of every status change state.db kept for the agent, across every host it had
    (a host's `agent watch` shows only the changes it saw itself)."""
    return [(change["to"], change["evidence"].get("event")) for change in _stored_changes(home, uuid)]


def status_history(home: Path, uuid: str) -> str:
    """Every status change of the agent with the source, rule and turn that made it, one a line:
    what a failed assertion on `status_changes` says (pytest cuts a long list short)."""
    lines = []
    for change in _stored_changes(home, uuid):
        evidence = change["evidence"]
        made_by = f"{evidence.get('source')}: {evidence.get('rule')}"
        lines.append(f"{change['to']} by {evidence.get('event')} ({made_by}) turn={evidence.get('turn')}")
    return "status history:\n" + "\n".join(lines)


def recorded_file_positions(home: Path, uuid: str, launch_pid: int) -> dict[str, dict[str, Any]]:
    """The read positions the host recorded for the launch's followed files, by path. The host
    writes them a loop turn after the lines they cover, so before it reads its next request:
    read them after a request the host answered once it had handled those lines."""
    with reading(home) as conn:
        saved = telemetry_positions.saved(conn, uuid, launch_pid)
    found = {}
    for key, text in saved.items():
        kind, place = json.loads(key)[:2]
        if kind == "file":
            found[place] = json.loads(text)
    return found
