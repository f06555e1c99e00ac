"""Finding and ending every process that belongs to an agent.

An agent's processes are its child's descendants *and* any process carrying the
agent's WARDIAN_SESSION_ID in its environment: a double-forked, setsid'd grandchild
leaves both the process tree and the process group, but not its environment.
"""

import contextlib
import os
import signal

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


def terminate(processes: list[psutil.Process], grace_seconds: float) -> list[int]:
    """SIGTERM, then SIGKILL whatever outlives the grace period. Blocking: run in a thread."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.send_signal(signal.SIGTERM)
    _, alive = psutil.wait_procs(processes, timeout=grace_seconds)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    _, still_alive = psutil.wait_procs(alive, timeout=2)
    return [process.pid for process in still_alive]
