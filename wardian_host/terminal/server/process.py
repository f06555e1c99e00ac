"""The terminal server process: `python -m wardian_host.terminal.server --home H [--ready-fd N] [--take-over]`.

One per home: it holds `<home>/run/terminal-server.lock` for its whole life and listens on
`<home>/run/terminal.sock` (owner-only). The host starts it detached, in a session of its
own (a host's crash, its terminal's hangup or Ctrl-C never reach it), with its stderr on
`<home>/logs/terminal-server.log`, and waits on the `--ready-fd` pipe for "ready" or the
error envelope of a failed start. A server that finds the lock taken reports the other's
pid: the host then connects to that one; with `--take-over` (a host that found the running
server of another protocol version: an upgrade) it takes that one's terminals instead
(`handover`), and serves them.
"""

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

from wardian_core import paths
from wardian_core.control import endpoint
from wardian_core.detached import report
from wardian_core.errors import WardianError
from wardian_core.process_locks import holder_pid, take_exclusive
from wardian_core.pty_backend import chosen_backend
from wardian_host.terminal.server import handover
from wardian_host.terminal.server.server import TerminalServer

SOCKET_NAME = "terminal.sock"
READY = "ready"


def lock_path(home: Path) -> Path:
    return paths.terminal_server_lock(home)


def log_path(home: Path) -> Path:
    return paths.logs_dir(home) / "terminal-server.log"


def socket_path(home: Path) -> Path:
    """`run/terminal.sock`, or for a home too long for a socket address a name derived from the
    home in the user's runtime folder (the same for the host and the server: both run as the user)."""
    primary = paths.run_dir(home) / SOCKET_NAME
    if len(os.fsencode(primary)) <= endpoint.max_socket_path_bytes():
        return primary
    directory = endpoint.fallback_socket_dir()
    endpoint.ensure_private_dir(directory)
    return directory / f"{endpoint.home_digest(home)}-terminal.sock"


def running_server_pid(home: Path) -> int | None:
    return holder_pid(lock_path(home))


def already_running(holder: str) -> WardianError:
    return WardianError(
        "request_failed",
        f"a terminal server is already running for this home (pid {holder})",
        "The host connects to it; `wardian host status` names it.",
        {"pid": holder, "reason": "already_running"},
    )


async def _serve(home: Path, ready_fd: int | None, lock_fd: int, received: handover.Received | None) -> None:
    server = TerminalServer(socket_path(home), chosen_backend(), lock_fd=lock_fd)
    await server.start(received)
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, server.stopped.set)
    loop.add_signal_handler(signal.SIGHUP, lambda: None)  # a hangup of whatever started it is not ours
    logging.getLogger(__name__).info("terminal server %s serving %s", os.getpid(), server.path)
    report(ready_fd, READY)
    await server.stopped.wait()
    await server.close()


def serve(home: Path, ready_fd: int | None, take_over: bool = False) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        taken = take_exclusive(lock_path(home))
        received = None
        if isinstance(taken, str) and take_over:
            received = handover.take_over(socket_path(home))
            handover.claim_lock(received.lock_fd)
            taken = received.lock_fd
            logging.getLogger(__name__).info("took over %d terminals", len(received.answer.terminals))
        if isinstance(taken, str):
            raise already_running(taken)
        asyncio.run(_serve(home, ready_fd, taken, received))
    except WardianError as error:
        report(ready_fd, error.to_json())
        return error.exit_code
    except Exception as exc:
        logging.getLogger(__name__).exception("terminal server crashed")
        report(ready_fd, WardianError("generic", f"terminal server crashed: {exc}").to_json())
        return 1
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="wardian-terminal-server")
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--ready-fd", type=int)
    parser.add_argument("--take-over", action="store_true", help="take the running server's terminals")
    args = parser.parse_args()
    sys.exit(serve(args.home, args.ready_fd, args.take_over))
