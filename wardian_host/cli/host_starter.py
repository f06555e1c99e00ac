"""Starting a detached host from the CLI and waiting until it serves.

The host holds none of the caller's descriptors (stdin/stdout/stderr go to
/dev/null, its log is its own), so a caller whose output is a pipe returns as soon
as the host is ready. A command that only needs a host (spawn) uses one that won a
race with it: hosts started at once queue until the first serves (`host_lock`). It starts
none while the home's host is stopping: what it launched there would outlive `host stop`.
"""

import json
import sys
from pathlib import Path

from wardian_core.detached import start_detached as start_process
from wardian_core.errors import WardianError
from wardian_core.pty_backend import check_host_platform
from wardian_host.daemon.host_lock import START_WAIT_SECONDS, running_host_pid, start_lock_path

# A host may first wait for another one of its home to serve, then start itself.
START_TIMEOUT_SECONDS = 2 * START_WAIT_SECONDS


def start_detached(
    home: Path, timeout: float = START_TIMEOUT_SECONDS, use_running: bool = False, after: int | None = None
) -> None:
    """Start a host and wait until it serves; `use_running`: a host that is already serving will do;
    `after`: the pid of a host still stopping, whose end the new one awaits before it serves."""
    check_host_platform()
    if use_running:
        refuse_while_stopping(home)
    argv = [sys.executable, "-m", "wardian_host.daemon", "--home", str(home)]
    if after is not None:
        argv += ["--after", str(after)]
    answer = start_process(argv, "host", timeout)
    if answer == "ready":
        return
    if answer.startswith("{"):
        error = WardianError.from_envelope(json.loads(answer))
        if use_running and error.details.get("reason") == "already_running":
            return  # another start won the race, and its host serves
        raise error
    raise WardianError(
        "app_not_running",
        "the host did not start",
        f"See its log: {home / 'logs' / 'host.log'}",
        {"home": str(home), "answer": answer},
    )


def refuse_while_stopping(home: Path) -> None:
    """`host_stopping` when a host holds the home's lock but has closed its socket: it is stopping
    (a host still starting holds the start lock until it serves). A spawn that started a new
    host then would launch an agent that outlives the `host stop` under way."""
    from wardian_core.process_locks import holder_pid

    stopping = running_host_pid(home)
    if stopping is None or holder_pid(start_lock_path(home)) is not None or _serves(home):
        return
    raise WardianError(
        "host_stopping",
        f"the host of this home (pid {stopping}) is stopping: no host was started and nothing launched",
        "Wait for `wardian host stop` to finish, then run the command again (it starts a new host).",
        {"pid": stopping, "home": str(home)},
    )


def _serves(home: Path) -> bool:
    """Whether the home's host takes connections: one that finished starting after the caller
    found no socket (20 spawns racing a host's start) serves, where a stopping one has closed it."""
    from wardian_core.control.client import ControlClient

    try:
        ControlClient.connect(home, timeout=5).close()
    except WardianError:
        return False
    return True
