"""Which agent, if any, a control connection comes from: one classifier for every command.

A caller is
- `verified`: the peer process the kernel reports (SO_PEERCRED) is tied to a live agent —
  the agent's process among its ancestors, the agent's session, or the agent's PTY as
  its controlling terminal;
- `claimed`: no such tie, but its environment's WARDIAN_SESSION_ID names an agent (a
  process that escaped its agent's tree with `setsid -f`, or anyone who set the
  variable): recorded as that agent, unverified, never taken for a person;
- `none`: neither; a person's terminal.

The pidfd taken at accept time proves the pid still names the same process when the
answer is used. docs/cli.md ("Callers") says what each command allows to each class.
"""

import os
import signal
from dataclasses import dataclass
from typing import Any, Literal

import psutil

from wardian_host.agents.live_agent import LiveAgent
from wardian_host.terminal.process_tree import SESSION_VARIABLE

Verification = Literal["verified", "claimed", "none"]
Tie = Literal["ancestry", "session", "terminal"]


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


@dataclass(frozen=True)
class Caller:
    pid: int
    verification: Verification
    agent: LiveAgent | None = None  # verified: the agent the tie confirms; claimed: the one named
    tie: Tie | None = None  # how a verified caller is tied to its agent

    def answer(self) -> dict[str, Any]:
        """`host whoami`'s answer."""
        agent = self.agent.snapshot() if self.agent else None
        return {"pid": self.pid, "verification": self.verification, "agent": agent, "tie": self.tie}


def _tty_number(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return int(fields[4])  # the field after ")": state ppid pgrp session tty_nr


def _live_agents_by_pid(agents: list[LiveAgent]) -> dict[int, LiveAgent]:
    """Agents alive now, by their process (the terminal's, or a headless agent's recovered one)."""
    return {int(agent.row["pid"]): agent for agent in agents if agent.row.get("pid")}


def _find_tie(pid: int, by_pid: dict[int, LiveAgent]) -> tuple[LiveAgent, Tie] | None:
    process = psutil.Process(pid)
    for member in [process, *process.parents()]:
        if member.pid in by_pid:
            return by_pid[member.pid], "ancestry"
    session = os.getsid(pid)
    for agent in by_pid.values():
        identity = agent.process_identity
        if identity is not None and identity.session == session:
            return agent, "session"
    tty = _tty_number(pid)
    if tty:
        for agent_pid, agent in by_pid.items():
            if _tty_number(agent_pid) == tty:
                return agent, "terminal"
    return None


def _claimed(pid: int, agents: list[LiveAgent]) -> LiveAgent | None:
    named = psutil.Process(pid).environ().get(SESSION_VARIABLE)
    return next((agent for agent in agents if agent.uuid == named), None) if named else None


def classify_caller(peer: PeerProcess, agents: list[LiveAgent]) -> Caller:
    nobody = Caller(peer.pid, "none")
    if not peer.alive():
        return nobody
    try:
        tie = _find_tie(peer.pid, _live_agents_by_pid(agents))
        caller = Caller(peer.pid, "verified", *tie) if tie else nobody
        if tie is None and (named := _claimed(peer.pid, agents)) is not None:
            caller = Caller(peer.pid, "claimed", named)
    except (psutil.Error, OSError):
        return nobody
    # The pidfd outliving the look-up proves the pid was not reused while we looked.
    return caller if peer.alive() else nobody
