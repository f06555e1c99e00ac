"""Finding and ending every process that belongs to an agent.

An agent's processes are those its launch's `ProcessIdentity` names (see
`wardian_core.process_identity`): its own process while it is still the one recorded,
the descendants of it and of every other member, the members of its session, and the
processes that inherited its launch token — a double-forked, setsid'd grandchild leaves
the tree and the session, not its environment. A process that merely carries the
agent's WARDIAN_SESSION_ID is none of them.
"""

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator

import psutil

from wardian_core.process_identity import START_TIME_TOLERANCE_SECONDS, TOKEN_VARIABLE, ProcessIdentity

SESSION_VARIABLE = "WARDIAN_SESSION_ID"


def capture(pid: int, session: int, token: str | None) -> ProcessIdentity:
    """The identity of a process just launched (`session`: the session it leads)."""
    try:
        started = psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        # It exited at once and the terminal server reaped it before this look: its exit is
        # reported as any other's, and a process that was launched a moment ago started about now.
        started = time.time()
    return ProcessIdentity(pid=pid, started=started, session=session, token=token)


def _started_by(process: psutil.Process, moment: float) -> bool:
    return process.create_time() <= moment + START_TIME_TOLERANCE_SECONDS


def own_process(identity: ProcessIdentity) -> psutil.Process | None:
    """The agent's own process, if it still runs (the same pid with another start time is not
    it, nor a zombie: dead, only not yet reaped by a parent that may never reap it)."""
    try:
        process = psutil.Process(identity.pid)
        if (
            abs(process.create_time() - identity.started) <= START_TIME_TOLERANCE_SECONDS
            and process.status() != psutil.STATUS_ZOMBIE
        ):
            return process
    except psutil.Error:
        pass
    return None


def _session_is_ours(identity: ProcessIdentity) -> bool:
    """No session id is reused while a member lives; a leader that started after the agent's
    own process is a new session on a reused pid."""
    try:
        return _started_by(psutil.Process(identity.session), identity.started)
    except psutil.NoSuchProcess:
        return True  # the leader left; its members still hold the session id
    except psutil.Error:
        return False


def _own_user_processes() -> Iterator[psutil.Process]:
    """This user's processes but the host, each with `info["ppid"]`."""
    own_uid, host = os.getuid(), os.getpid()
    for process in psutil.process_iter(["uids", "ppid"]):
        uids = process.info.get("uids")
        if process.pid != host and uids is not None and uids.real == own_uid:
            yield process


def _environment_value(process: psutil.Process, name: str) -> str | None:
    try:
        return process.environ().get(name)
    except (psutil.Error, OSError):
        return None


def _is_member(process: psutil.Process, identity: ProcessIdentity, session_is_ours: bool) -> bool:
    try:
        if session_is_ours and os.getsid(process.pid) == identity.session:
            return True
    except OSError:
        return False
    return identity.token is not None and _environment_value(process, TOKEN_VARIABLE) == identity.token


def agent_processes(identity: ProcessIdentity | None) -> list[psutil.Process]:
    """Every living process (no zombie) of the launch `identity` names, found in one pass over the table."""
    if identity is None:
        return []
    session_is_ours = _session_is_ours(identity)
    own = own_process(identity)
    pending = [own] if own is not None else []
    children: dict[int, list[psutil.Process]] = {}
    for process in _own_user_processes():
        children.setdefault(process.info["ppid"], []).append(process)
        if _is_member(process, identity, session_is_ours):
            pending.append(process)
    members: dict[int, psutil.Process] = {}
    while pending:  # the members and all their descendants
        process = pending.pop()
        if process.pid not in members:
            members[process.pid] = process
            pending += children.get(process.pid, [])
    return _living(list(members.values()))


def legacy_identity(pid: int, agent_uuid: str) -> ProcessIdentity | None:
    """An agent launched by an older Wardian recorded only its pid: it is still that agent's
    process when its environment names the agent (a reused pid's would not)."""
    try:
        process = psutil.Process(pid)
        if _environment_value(process, SESSION_VARIABLE) != agent_uuid:
            return None
        return ProcessIdentity(pid=pid, started=process.create_time(), session=os.getsid(pid))
    except (psutil.Error, OSError):
        return None


def processes_by_session(agent_uuids: set[str]) -> dict[str, list[psutil.Process]]:
    """Processes of this user whose environment names one of `agent_uuids` (a test's reaper:
    everything a test's agents may have left, impostors included)."""
    found: dict[str, list[psutil.Process]] = {uuid: [] for uuid in agent_uuids}
    for process in _own_user_processes():
        session_id = _environment_value(process, SESSION_VARIABLE)
        if session_id in found:
            found[session_id].append(process)
    return found


# How many times a kill looks again for processes forked while it was ending the others.
KILL_ROUNDS = 5
# How long a round waits for SIGKILLed processes to be gone.
KILL_WAIT_SECONDS = 2.0
# How long a hang-up is given before SIGTERM follows, as when a terminal window closes: a shell's
# HUP trap runs at its next safe point, and a SIGTERM that arrived with the hang-up (both pending
# while frozen) would end it before.
HANG_UP_SECONDS = 0.5
# How often a wait for processes to end looks again for ones that ended unreaped.
ENDED_POLL_SECONDS = 0.05


def _living(processes: list[psutil.Process]) -> list[psutil.Process]:
    """The ones still running; a zombie is dead, only not yet reaped by its parent."""
    living = []
    for process in processes:
        with contextlib.suppress(psutil.Error):
            if process.status() != psutil.STATUS_ZOMBIE:
                living.append(process)
    return living


def _signal_all(processes: list[psutil.Process], signal_number: int) -> None:
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.send_signal(signal_number)


def _freeze(find: Callable[[], list[psutil.Process]]) -> list[psutil.Process]:
    """SIGSTOP every process `find` names, again for those forked meanwhile, until none is new.

    A stopped process cannot fork, so what is frozen here is everything left to kill.
    """
    frozen: dict[int, psutil.Process] = {}
    for _ in range(KILL_ROUNDS):
        new = [process for process in _living(find()) if process.pid not in frozen]
        if not new:
            break
        _signal_all(new, signal.SIGSTOP)
        frozen |= {process.pid: process for process in new}
    return list(frozen.values())


def end_processes(
    find: Callable[[], list[psutil.Process]], grace_seconds: float, hang_up: Callable[[], None] | None = None
) -> list[psutil.Process]:
    """End what `find` names: frozen first, then `hang_up` (the terminal's group gets SIGHUP,
    handled for up to HANG_UP_SECONDS), then SIGTERM, then SIGKILL for what outlives the grace
    period, until nothing is left (at most KILL_ROUNDS times); returns the survivors. Blocking:
    run in a thread.

    Every process found once is held to the end: a direct child that left the session and
    the environment is found only as a descendant, and once its parent dies of the hang-up
    it is re-parented and no later look finds it. `find` is asked again each round, so
    children forked during the grace period, or between two rounds, are ended too.
    """
    held: dict[int, psutil.Process] = {}

    def found_or_held() -> list[psutil.Process]:
        for process in find():
            held.setdefault(process.pid, process)
        return list(held.values())

    first = _freeze(found_or_held)
    if hang_up is not None:
        hang_up()
        _signal_all(first, signal.SIGCONT)
        wait_ended(first, min(grace_seconds, HANG_UP_SECONDS))
        first = _freeze(found_or_held)
    _signal_all(first, signal.SIGTERM)
    _signal_all(first, signal.SIGCONT)  # SIGTERM is handled now, as without the freeze
    wait_ended(first, grace_seconds)
    for _ in range(KILL_ROUNDS):
        frozen = _freeze(found_or_held)
        if not frozen:
            return []
        _signal_all(frozen, signal.SIGKILL)
        _signal_all(frozen, signal.SIGCONT)  # a stopped process takes SIGKILL; this only hurries it
        wait_ended(frozen, KILL_WAIT_SECONDS)
    return _living(found_or_held())


def wait_ended(processes: list[psutil.Process], seconds: float) -> None:
    """Return once every process has ended, or after `seconds`. A zombie has ended: waiting
    for its parent to reap it (an orphan's reaper may do so seconds later, or never, as a
    container's pid 1) would wait out the whole grace period for processes already dead.
    Our own children are reaped here, as `psutil.wait_procs` reaps them."""
    deadline = time.monotonic() + seconds
    pending = processes
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        _, alive = psutil.wait_procs(pending, timeout=min(remaining, ENDED_POLL_SECONDS))
        pending = _living(alive)
