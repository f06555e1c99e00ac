"""Ending whatever a test left running in a Wardian home: its host, its terminal server and its agents' processes.

For the suites of Wardian and of provider packages; a test's hosts are reaped however it ended.
"""

import contextlib
import os
import signal
import sqlite3
from pathlib import Path

import psutil

from wardian_host.daemon.host_lock import running_host_pid
from wardian_host.terminal import process_tree
from wardian_host.terminal.server.process import running_server_pid


def agent_uuids(home: Path) -> set[str]:
    db = home / "state.db"
    if not db.exists():
        return set()
    conn = sqlite3.connect(db)
    try:
        return {row[0] for row in conn.execute("SELECT uuid FROM agents")}
    except sqlite3.Error:
        return set()
    finally:
        conn.close()


def reap_home(home: Path) -> None:
    """Kill the home's host, its terminal server and every process that carries one of its agents' ids."""
    for pid in (running_host_pid(home), running_server_pid(home)):
        if pid and pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    leftovers = [p for group in process_tree.processes_by_session(agent_uuids(home)).values() for p in group]
    for process in leftovers:
        with contextlib.suppress(psutil.Error):
            process.kill()
    process_tree.wait_ended(leftovers, 5)  # not their reaping: an orphan's reaper may be seconds late


def kill_host_and_terminal_server(home: Path) -> None:
    """SIGKILL the home's host and its terminal server, as a crash of both would, and wait until
    both are gone: the PTYs close, and agents that ignore the hangup live on outside any
    terminal (`headless` for the next host). A crash of the host alone leaves them adopted."""
    processes = []
    for pid in (running_host_pid(home), running_server_pid(home)):
        if pid and pid > 0:
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                process.kill()
                processes.append(process)
    process_tree.wait_ended(processes, 10)
