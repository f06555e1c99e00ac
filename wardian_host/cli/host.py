"""`wardian host`: start, stop and inspect the background host of this home."""

import contextlib
import sys
from pathlib import Path
from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_host.answers.connection import lifecycle_timeout
from wardian_host.answers.host import whoami_answer
from wardian_host.cli.live import emit, request
from wardian_host.cli.render import write_json


@click.group()
def host() -> None:
    """The background host that owns every agent's terminal."""


@host.command("start")
@click.option("--foreground", is_flag=True, help="Stay attached and log to this terminal.")
def start(foreground: bool) -> None:
    """Start the host for this WARDIAN_HOME (detached unless --foreground)."""
    from wardian_core.pty_backend import check_host_platform

    check_host_platform()  # before anything imports what Windows lacks (fcntl)
    home = paths.wardian_home()
    if foreground:
        from wardian_host.daemon.process import serve

        sys.exit(serve(home, foreground=True, ready_fd=None))
    from wardian_host.cli.host_starter import start_detached

    start_detached(home)
    emit("host", request("host.status"))


@host.command("stop")
def stop() -> None:
    """Stop the host, its agents (ended gracefully first) and its terminal server."""
    emit("host", _stopped(keep_agents=False))


@host.command("restart")
def restart() -> None:
    """Restart the host; every agent goes on in the terminal server and the new host adopts it."""
    from wardian_host.cli.host_starter import start_detached
    from wardian_host.daemon.host_lock import running_host_pid

    home = paths.wardian_home()
    old = running_host_pid(home)
    try:
        stopped = _stopped(keep_agents=True)
    except WardianError as error:
        if error.code != "control_endpoint_timeout" or old is None:
            raise
        stopped = {"pid": old, "stopped": False}
    if not stopped["stopped"]:
        _start_after(home, stopped["pid"])
        raise WardianError(
            "control_endpoint_timeout",
            f"the host (pid {stopped['pid']}) was still stopping when the time was up; "
            "the next host serves once it is gone",
            "Run `wardian host status` in a moment; `wardian host logs` says what held the old host.",
            {"pid": stopped["pid"]},
        )
    start_detached(home)
    emit("host", request("host.status") | {"restarted_from": stopped["pid"]})


def _start_after(home: Path, old: int | None) -> None:
    """The next host, started by this command (with its environment) but serving only once the
    host still stopping is gone: a restart that ran out of time never leaves the home without a
    host. It is not waited for."""
    from wardian_host.cli.host_starter import start_detached

    with contextlib.suppress(WardianError):  # its answer comes after this command gave up
        start_detached(home, timeout=0.05, after=old)


def _stopped(keep_agents: bool) -> dict[str, Any]:
    """Ask the host to stop and wait until its process is gone; its answer and `stopped`."""
    import time

    from wardian_core.control.client import ControlClient
    from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone, wait_until_released

    home = paths.wardian_home()
    deadline = time.monotonic() + lifecycle_timeout()

    def left() -> float:
        return max(deadline - time.monotonic(), 0.01)  # 0 would make a socket non-blocking

    with ControlClient.connect(home) as client:
        try:
            answer: dict[str, Any] = client.request("host.stop", {"keep_agents": keep_agents}, timeout=left())
        except WardianError as error:
            if error.code != "protocol_mismatch":
                raise
            # A host of another version stops all the same (it takes host.stop from any CLI);
            # only its answer is in a frame this CLI does not read.
            answer = {"stopping": True, "pid": running_host_pid(home)}
        client.wait_closed(timeout=left())  # the host closes every connection as it exits
    # `stopped` only once the process is gone: the lock is let go before the interpreter's teardown.
    pid = answer["pid"]
    stopped = wait_until_released(home, timeout=left()) and (pid is None or wait_until_gone(pid, left()))
    return answer | {"stopped": stopped}


@host.command("status")
def status() -> None:
    """The running host: pid, version, protocol, socket, agent counts."""
    emit("host", request("host.status"))


@host.command("whoami")
def whoami() -> None:
    """Which agent the host takes this process for (by process ancestry, session or terminal)."""
    write_json(whoami_answer())


@host.command("logs")
@click.option("--lines", "-n", type=click.IntRange(min=1), default=100, show_default=True, help="How many lines.")
def logs(lines: int) -> None:
    """The end of the host's log."""
    from wardian_host.daemon.process import log_file

    target = log_file(paths.wardian_home())
    if not target.exists():
        raise WardianError("not_found", f"no host log at {target}", "Start the host with `wardian host start`.")
    with target.open("rb") as handle:
        tail = handle.readlines()[-lines:]
    sys.stdout.write(b"".join(tail).decode(errors="replace"))
