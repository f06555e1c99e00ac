"""The host process: `python -m wardian_host.daemon --home H [--foreground] [--ready-fd N]`.

Started detached by `wardian host start` (or by `wardian agent spawn`), it reports
readiness or its start-up error through the `--ready-fd` pipe, so the starting CLI
waits for an event rather than polling the socket.
"""

import argparse
import asyncio
import logging
import logging.handlers
import sys
from collections.abc import Callable
from pathlib import Path

from wardian_core import paths
from wardian_core.control import endpoint
from wardian_core.detached import report
from wardian_core.errors import WardianError, write_failed
from wardian_host.daemon import home_modes
from wardian_host.daemon.gc_schedule import FullCollections
from wardian_host.daemon.host import Host
from wardian_host.daemon.host_lock import HostLock, StartLock, wait_until_gone
from wardian_host.daemon.write_refusals import as_write_failed

LOG_BYTES = 1024 * 1024
# How long a host started by `host restart` waits for the old host, still stopping, to be gone.
SUCCESSOR_WAIT_SECONDS = 300.0
LOG_BACKUPS = 3


def log_file(home: Path) -> Path:
    return paths.logs_dir(home) / "host.log"


def configure_logging(home: Path, foreground: bool) -> None:
    target = log_file(home)
    endpoint.ensure_private_dir(target.parent)  # a link in logs/'s place is refused, not followed
    handlers: list[logging.Handler] = [
        home_modes.PrivateLogHandler(target, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS)
    ]
    if foreground:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", handlers=handlers, force=True
    )


async def _run_host(home: Path, on_ready: Callable[[], None]) -> None:
    collections = FullCollections(asyncio.get_running_loop())

    def ready() -> None:
        on_ready()  # first: the starting CLI does not wait for the collection below
        collections.start()

    try:
        await Host(home).run(ready)
    finally:
        collections.stop()


def _prepare(home: Path, foreground: bool) -> tuple[StartLock, HostLock]:
    """The home made ready and both locks taken; a home the file system refuses is `write_failed`."""
    try:
        paths.check_owner_within(home)  # before anything is written or tightened
        loose = home_modes.tighten(paths.ensure_home(home))
        configure_logging(home, foreground)
    except OSError as exc:  # a read-only or full home: the host cannot even log why
        raise write_failed(Path(exc.filename or home), exc) from None
    for problem in loose:
        logging.getLogger(__name__).warning("could not make owner-only: %s", problem)
    starting, lock = StartLock(home), HostLock(home)
    try:
        starting.acquire()  # a host started at the same moment serves before this one goes on
        lock.acquire()
    except OSError as exc:
        starting.release()
        raise write_failed(Path(exc.filename or paths.run_dir(home)), exc) from None
    except WardianError:
        starting.release()
        raise
    return starting, lock


def serve(home: Path, foreground: bool, ready_fd: int | None, after: int | None = None) -> int:
    """`after`: a host still stopping (a `host restart` that ran out of time), whose end this one awaits."""
    try:
        if after is not None and not wait_until_gone(after, SUCCESSOR_WAIT_SECONDS):
            raise WardianError(
                "request_failed",
                f"the host (pid {after}) was still running {SUCCESSOR_WAIT_SECONDS:.0f} s after it was told to stop",
                "See `wardian host logs`; stop it with `wardian host stop`, or end its process.",
                {"pid": after, "reason": "already_running"},
            )
        starting, lock = _prepare(home, foreground)
    except WardianError as error:
        report(ready_fd, error.to_json())
        if foreground:
            sys.stderr.write(error.to_json() + "\n")
        return error.exit_code

    def on_ready() -> None:
        report(ready_fd, "ready")
        starting.release()

    try:
        asyncio.run(_run_host(home, on_ready))
    except WardianError as error:
        logging.getLogger(__name__).error("host failed: %s", error.message)
        report(ready_fd, error.to_json())
        return error.exit_code
    except Exception as exc:
        if (refused := as_write_failed(exc, home)) is not None:  # e.g. bin/wardian on a full disk
            logging.getLogger(__name__).error("host failed: %s", refused.message)
            report(ready_fd, refused.to_json())
            return refused.exit_code
        logging.getLogger(__name__).exception("host crashed")
        report(ready_fd, WardianError("generic", f"host crashed: {exc}").to_json())
        return 1
    finally:
        lock.release()
        starting.release()  # after the host lock: a host waiting on it must find no host, not a dying one
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="wardian-host")
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--foreground", action="store_true")
    parser.add_argument("--ready-fd", type=int)
    parser.add_argument("--after", type=int, help="first wait for this stopping host's process to end")
    args = parser.parse_args()
    sys.exit(serve(args.home, args.foreground, args.ready_fd, args.after))


if __name__ == "__main__":
    main()
