"""Reconciling state.db with the OS when a host starts.

An agent whose processes outlived the previous host is `headless`: alive, but without a
PTY the host can type into. Its processes are those its launch recorded (its own process,
the same pid with the same start time, and its descendants, its session, its launch
token: `wardian_core.process_identity`), never a process that merely carries its
WARDIAN_SESSION_ID, which anyone may set. The rest are `off`, but for an agent whose
unexpected exit a host saw: it stays `error`, with its exit code and output tail.
"""

import sqlite3

import psutil

from wardian_core.db import agents as agent_rows
from wardian_core.process_identity import ProcessIdentity
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.terminal import process_tree


def _recorded_identity(agent: LiveAgent) -> ProcessIdentity | None:
    """What the launch recorded; for an agent an older Wardian launched, its pid, if that is still its process."""
    identity = agent.process_identity
    if identity is None and (pid := agent.row["pid"]):
        identity = process_tree.legacy_identity(pid, agent.uuid)
    return identity


def _oldest(processes: list[psutil.Process]) -> psutil.Process:
    """The member that has run longest, to stand for an agent whose own process is gone."""
    try:
        return min(processes, key=lambda process: process.create_time())
    except psutil.Error:  # one ended while we looked
        return processes[0]


def _ended_for_good(agent: LiveAgent) -> bool:
    """Off, or in `error` after an exit a host recorded (no pid left): nothing to look for."""
    if agent.status == "off" and agent.row["is_off"]:
        return True
    return agent.status == "error" and agent.row.get("pid") is None


def reconcile(registry: AgentRegistry, tracker: StatusTracker, conn: sqlite3.Connection) -> None:
    for agent in registry.all():
        if agent.is_running or _ended_for_good(agent):  # running: adopted from the terminal server
            continue
        identity = _recorded_identity(agent)
        processes = process_tree.agent_processes(identity)
        if identity is not None and processes:
            own = process_tree.own_process(identity)
            pid = own.pid if own is not None else _oldest(processes).pid
            agent_rows.update_columns(conn, agent.uuid, pid=pid, is_off=0, process_identity=identity.stored())
            registry.refresh(agent)
            rule = "its own process is alive" if own is not None else "processes of its launch are alive"
            tracker.set_status(agent, "headless", {"source": "host", "event": "recovery", "rule": rule, "pid": pid})
        else:
            agent_rows.update_columns(conn, agent.uuid, pid=None, is_off=1)
            registry.refresh(agent)
            tracker.set_status(agent, "off", {"source": "host", "event": "recovery", "rule": "no process found"})
