"""Which agent, if any, a control connection comes from: one classifier for every command.

A caller is
- `verified`: the peer process the kernel reports (`endpoint.peer_credentials`) is tied
  to an agent — it is in the agent's own cgroup (where the system allows them:
  `terminal.agent_cgroups`; a process cannot leave it by itself, so this tie holds for a
  process that escaped the tree), or, to a live agent, the agent's process among its
  ancestors, the agent's session, or the agent's PTY as its controlling terminal;
- `claimed`: no such tie, but its environment's WARDIAN_SESSION_ID names an agent (a
  process that escaped its agent's tree with `setsid -f`, or anyone who set the
  variable): recorded as that agent, unverified, never taken for a person;
- `none`: neither; a person's terminal.

What is taken of the peer at accept time proves its pid still names the same process
when the answer is used: a pidfd on the Linux backend; on the portable one (no pidfd on
macOS and the BSDs), its start time, which a process on a reused pid does not share.
docs/cli.md ("Callers") says what each command allows to each class.
"""

import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import psutil

from wardian_core import pty_backend
from wardian_core.process_identity import ProcessIdentity
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.terminal import process_tree
from wardian_host.terminal.agent_cgroups import AgentCgroups, CgroupSupport
from wardian_host.terminal.process_tree import SESSION_VARIABLE

Verification = Literal["verified", "claimed", "none"]
NO_CGROUPS = CgroupSupport(None, "the host was given no agent cgroups")
Tie = Literal["cgroup", "ancestry", "session", "terminal"]


@dataclass
class PeerProcess:
    pid: int
    uid: int
    pidfd: int | None = None  # the Linux backend's hold on the process
    identity: ProcessIdentity | None = None  # the portable backend's: its pid with its start time

    @classmethod
    def capture(cls, pid: int, uid: int) -> "PeerProcess":
        """The peer as it is now; one that already left is never alive."""
        if not pty_backend.portable():
            try:
                return cls(pid, uid, pidfd=os.pidfd_open(pid))
            except OSError:
                return cls(pid, uid)
        try:
            return cls(pid, uid, identity=process_tree.capture(pid, os.getsid(pid), token=None))
        except (psutil.Error, OSError):
            return cls(pid, uid)

    def alive(self) -> bool:
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, 0)
                return True
            except ProcessLookupError:
                return False
        return self.identity is not None and process_tree.own_process(self.identity) is not None

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
    cgroups: CgroupSupport = NO_CGROUPS  # whether the cgroup tie was there to hold

    def answer(self) -> dict[str, Any]:
        """`host whoami`'s answer."""
        agent = self.agent.snapshot() if self.agent else None
        return {
            "pid": self.pid,
            "verification": self.verification,
            "agent": agent,
            "tie": self.tie,
            "cgroups": self.cgroups.answer(),
        }


def _terminal(pid: int) -> int | str | None:
    """What names the process's controlling terminal, equal for processes that share it; None without one.

    psutil's terminal() finds a device's path in a listing of /dev it makes once per process, so in
    the long-lived host a PTY opened after the first look has no path and ties nobody: on Linux the
    device number is read from /proc instead (psutil serves macOS and the BSDs).
    """
    if sys.platform.startswith("linux"):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        tty_nr = int(stat.rsplit(")", 1)[1].split()[4])  # after the name: state ppid pgrp session tty_nr
        return tty_nr or None
    try:
        return psutil.Process(pid).terminal()
    except psutil.NoSuchProcess:
        return None


def _live_agents_by_pid(agents: list[LiveAgent]) -> dict[int, LiveAgent]:
    """Agents alive now, by their process (the terminal's, or a headless agent's recovered one)."""
    return {pid: agent for agent in agents if (pid := agent.row["pid"])}


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
    terminal = _terminal(pid)
    if terminal:
        for agent_pid, agent in by_pid.items():
            if _terminal(agent_pid) == terminal:
                return agent, "terminal"
    return None


def _cgroup_tie(pid: int, agents: list[LiveAgent], cgroups: AgentCgroups | None) -> tuple[LiveAgent, Tie] | None:
    """The agent whose cgroup holds the caller, running or not: its escaped process is still its own."""
    uuid = cgroups.agent_of(pid) if cgroups is not None else None
    agent = next((agent for agent in agents if agent.uuid == uuid), None) if uuid else None
    return (agent, "cgroup") if agent is not None else None


def _claimed(pid: int, agents: list[LiveAgent]) -> LiveAgent | None:
    named = psutil.Process(pid).environ().get(SESSION_VARIABLE)
    return next((agent for agent in agents if agent.uuid == named), None) if named else None


def classify_caller(peer: PeerProcess, agents: list[LiveAgent], cgroups: AgentCgroups | None = None) -> Caller:
    support = cgroups.support if cgroups is not None else NO_CGROUPS
    nobody = Caller(peer.pid, "none", cgroups=support)
    if not peer.alive():
        return nobody
    try:
        tie = _cgroup_tie(peer.pid, agents, cgroups) or _find_tie(peer.pid, _live_agents_by_pid(agents))
        caller = Caller(peer.pid, "verified", *tie, cgroups=support) if tie else nobody
        if tie is None and (named := _claimed(peer.pid, agents)) is not None:
            caller = Caller(peer.pid, "claimed", named, cgroups=support)
    except (psutil.Error, OSError):
        return nobody
    # The peer outliving the look-up (its pidfd, or its start time) proves the pid was not reused while we looked.
    return caller if peer.alive() else nobody
