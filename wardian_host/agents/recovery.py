"""Reconciling state.db with the OS when a host starts.

An agent whose process outlived the previous host (verified by the
WARDIAN_SESSION_ID in the process's environment, not by a pid that may have been
reused) is `headless`: alive, but without a PTY the host can type into. The rest are `off`.
"""

import sqlite3

import psutil

from wardian_core.db import agents as agent_rows
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.terminal import process_tree


def _root(processes: list[psutil.Process]) -> psutil.Process:
    pids = {process.pid for process in processes}
    for process in processes:
        try:
            if process.ppid() not in pids:
                return process
        except psutil.Error:
            continue
    return processes[0]


def reconcile(registry: AgentRegistry, tracker: StatusTracker, conn: sqlite3.Connection) -> None:
    candidates = [agent for agent in registry.all() if agent.status != "off" or not agent.row["is_off"]]
    if not candidates:
        return
    alive = process_tree.processes_by_session({agent.uuid for agent in candidates})
    for agent in candidates:
        processes = alive[agent.uuid]
        if processes:
            pid = _root(processes).pid
            agent_rows.update_columns(conn, agent.uuid, pid=pid, is_off=0)
            registry.refresh(agent)
            tracker.set_status(
                agent,
                "headless",
                {"source": "host", "event": "recovery", "rule": "process carries WARDIAN_SESSION_ID", "pid": pid},
            )
        else:
            agent_rows.update_columns(conn, agent.uuid, pid=None, is_off=1)
            registry.refresh(agent)
            tracker.set_status(agent, "off", {"source": "host", "event": "recovery", "rule": "no process found"})
