"""Finding and ending every process that belongs to an agent.

An agent's processes are its child's descendants *and* any process carrying the
agent's WARDIAN_SESSION_ID in its environment: a double-forked, setsid'd grandchild
leaves both the process tree and the process group, but not its environment.
"""

import contextlib
import os
import signal
from collections.abc import Callable

import psutil

SESSION_VARIABLE = "WARDIAN_SESSION_ID"


def _session_id_of(process: psutil.Process) -> str | None:
    try:
        return process.environ().get(SESSION_VARIABLE)
    except (psutil.Error, OSError):
        return None


def processes_by_session(agent_uuids: set[str]) -> dict[str, list[psutil.Process]]:
    """Processes of this user whose environment names one of `agent_uuids`."""
    found: dict[str, list[psutil.Process]] = {uuid: [] for uuid in agent_uuids}
    own_uid = os.getuid()
    for process in psutil.process_iter(["uids"]):
        uids = process.info.get("uids")
        if process.pid == os.getpid() or uids is None or uids.real != own_uid:
            continue
        session_id = _session_id_of(process)
        if session_id in found:
            found[session_id].append(process)
    return found


def agent_processes(agent_uuid: str, root_pid: int | None) -> list[psutil.Process]:
    members: dict[int, psutil.Process] = {}
    if root_pid is not None:
        try:
            root = psutil.Process(root_pid)
            for process in [root, *root.children(recursive=True)]:
                members[process.pid] = process
        except psutil.Error:
            pass
    for process in processes_by_session({agent_uuid})[agent_uuid]:
        members.setdefault(process.pid, process)
    return list(members.values())


# How many times a kill looks again for processes forked while it was ending the others.
KILL_ROUNDS = 5
# How long a round waits for SIGKILLed processes to be gone.
KILL_WAIT_SECONDS = 2.0


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


def end_processes(find: Callable[[], list[psutil.Process]], grace_seconds: float) -> list[psutil.Process]:
    """SIGTERM what `find` names, then SIGKILL what outlives the grace period, until `find`
    names nothing (at most KILL_ROUNDS times); returns the survivors. Blocking: run in a thread.

    `find` is asked again each round, so children forked during the grace period, or
    between two rounds, are ended too.
    """
    first = _living(find())
    _signal_all(first, signal.SIGTERM)
    psutil.wait_procs(first, timeout=grace_seconds)
    for _ in range(KILL_ROUNDS):
        frozen = _freeze(find)
        if not frozen:
            return []
        _signal_all(frozen, signal.SIGKILL)
        _signal_all(frozen, signal.SIGCONT)  # a stopped process takes SIGKILL; this only hurries it
        psutil.wait_procs(frozen, timeout=KILL_WAIT_SECONDS)
    return _living(find())
