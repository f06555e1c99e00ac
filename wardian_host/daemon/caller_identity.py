"""Which agent, if any, a control connection comes from.

Decided from the peer process the kernel reports (SO_PEERCRED), never from what the
caller claims: a process is an agent's when the agent's process is among its
ancestors, when it is in the agent's session, or when its controlling terminal is
the agent's PTY. The pidfd taken at accept time proves the pid still names the
same process when the answer is used.
"""

import os
import signal
from dataclasses import dataclass

import psutil

from wardian_host.agents.live_agent import LiveAgent


@dataclass
class PeerProcess:
    pid: int
    uid: int
    pidfd: int | None

    @classmethod
    def capture(cls, pid: int, uid: int) -> "PeerProcess":
        try:
            pidfd: int | None = os.pidfd_open(pid)
        except OSError:
            pidfd = None
        return cls(pid, uid, pidfd)

    def alive(self) -> bool:
        if self.pidfd is None:
            return False
        try:
            signal.pidfd_send_signal(self.pidfd, 0)
            return True
        except ProcessLookupError:
            return False

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def _tty_number(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return int(fields[4])  # the field after ")": state ppid pgrp session tty_nr


def _agent_pids(agents: list[LiveAgent]) -> dict[int, LiveAgent]:
    pids: dict[int, LiveAgent] = {}
    for agent in agents:
        pid = agent.row.get("pid")  # the terminal's process, or a headless agent's recovered one
        if pid:
            pids[int(pid)] = agent
    return pids


def _find_tie(pid: int, by_pid: dict[int, LiveAgent]) -> tuple[LiveAgent | None, str | None]:
    process = psutil.Process(pid)
    for member in [process, *process.parents()]:
        if member.pid in by_pid:
            return by_pid[member.pid], "ancestry"
    session = os.getsid(pid)
    if session in by_pid:
        return by_pid[session], "session"
    tty = _tty_number(pid)
    if tty:
        for agent_pid, agent in by_pid.items():
            if _tty_number(agent_pid) == tty:
                return agent, "terminal"
    return None, None


def identify_caller(peer: PeerProcess, agents: list[LiveAgent]) -> tuple[LiveAgent | None, str | None]:
    """(agent, tie) where tie is `ancestry`, `session` or `terminal`; (None, None) otherwise."""
    by_pid = _agent_pids(agents)
    if not by_pid or not peer.alive():
        return None, None
    try:
        found = _find_tie(peer.pid, by_pid)
    except (psutil.Error, OSError):
        return None, None
    # The pidfd outliving the look-up proves the pid was not reused while we looked.
    return found if peer.alive() else (None, None)
