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
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import psutil

from wardian_core import pty_backend
from wardian_core.control.answers import CgroupTie, Tie, Verification, WhoamiAnswer
from wardian_core.process_identity import ProcessIdentity
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.terminal import process_tree
from wardian_host.terminal.agent_cgroups import AgentCgroups, CgroupSupport
from wardian_host.terminal.process_tree import SESSION_VARIABLE

NO_CGROUPS = CgroupSupport(None, "the host was given no agent cgroups")


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

    def answer(self) -> WhoamiAnswer:
        """`host whoami`'s answer."""
        return WhoamiAnswer(
            pid=self.pid,
            verification=self.verification,
            agent=self.agent.answer() if self.agent else None,
            tie=self.tie,
            cgroups=CgroupTie.model_validate(self.cgroups.answer()),
        )


class _Stat(NamedTuple):
    """What /proc/<pid>/stat says of a process (Linux)."""

    ppid: int
    tty_nr: int  # its controlling terminal's device number, 0 for none
    started: int  # clock ticks after boot


def _linux_stat(pid: int) -> _Stat | None:
    # os.read on a raw fd: a quarter of what a Path's text read costs, once per ancestor per request.
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)  # a few hundred bytes; the name in it is at most 16
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = data.rsplit(b")", 1)[1].split()  # after the name, which may hold anything: field 3 (state) on
    return _Stat(ppid=int(fields[1]), tty_nr=int(fields[4]), started=int(fields[19]))


def _terminal(pid: int) -> int | str | None:
    """What names the process's controlling terminal, equal for processes that share it; None without one.

    psutil's terminal() finds a device's path in a listing of /dev it makes once per process, so in
    the long-lived host a PTY opened after the first look has no path and ties nobody: on Linux the
    device number is read from /proc instead (psutil serves macOS and the BSDs).
    """
    if sys.platform.startswith("linux"):
        stat = _linux_stat(pid)
        return (stat.tty_nr or None) if stat is not None else None
    try:
        return psutil.Process(pid).terminal()
    except psutil.NoSuchProcess:
        return None


def _lineage(pid: int) -> Iterator[int]:
    """The process, then its ancestors up to the first process, as long as asked for.

    On Linux one read of /proc per generation, instead of the several psutil makes; like psutil, a
    parent that started after its child is a reused pid, and ends the walk.
    """
    if not sys.platform.startswith("linux"):
        process = psutil.Process(pid)
        yield from (member.pid for member in [process, *process.parents()])
        return
    stat = _linux_stat(pid)
    if stat is None:
        raise psutil.NoSuchProcess(pid)
    yield pid
    while stat.ppid > 0:
        parent = _linux_stat(stat.ppid)
        if parent is None or parent.started > stat.started:
            return
        yield stat.ppid
        stat = parent


def _agent_terminal(pid: int, agent: LiveAgent) -> int | str | None:
    """The agent process's controlling terminal, read once per process: its PTY stays its terminal for life.

    Keyed by the process (its pid and the identity its launch recorded, start time included), so a
    relaunch, a restart or an adoption reads it anew. A process not yet on its terminal (just
    forked) or one without a recorded identity is read again next time.
    """
    key = (pid, agent.row.get("process_identity") or "")
    if agent.seen_terminal is not None and agent.seen_terminal[0] == key:
        return agent.seen_terminal[1]
    terminal = _terminal(pid)
    if terminal is not None and key[1]:
        agent.seen_terminal = (key, terminal)
    return terminal


@lru_cache(maxsize=1024)
def _session_of(stored_identity: str) -> int:
    """The session an agent's launch leads: parsed once per launch, not once per agent per request."""
    identity = ProcessIdentity.from_stored(stored_identity)
    assert identity is not None  # a stored identity is never empty text
    return identity.session


def _live_agents_by_pid(agents: list[LiveAgent]) -> dict[int, LiveAgent]:
    """Agents alive now, by their process (the terminal's, or a headless agent's recovered one)."""
    return {pid: agent for agent in agents if (pid := agent.row["pid"])}


def _find_tie(pid: int, by_pid: dict[int, LiveAgent]) -> tuple[LiveAgent, Tie] | None:
    for member in _lineage(pid):
        if member in by_pid:
            return by_pid[member], "ancestry"
    session = os.getsid(pid)
    for agent in by_pid.values():
        stored = agent.row.get("process_identity")
        if stored and _session_of(stored) == session:
            return agent, "session"
    terminal = _terminal(pid)
    if terminal:
        for agent_pid, agent in by_pid.items():
            if _agent_terminal(agent_pid, agent) == terminal:
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
