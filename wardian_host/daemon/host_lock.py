"""One host per home: an exclusive lock held for the host's whole life.

The lock (flock on `<home>/run/host.lock`) is released by the kernel when the host
dies, however it dies, so a lock that can be taken means any socket file left
behind belongs to a dead host and may be replaced.

The host also holds a flock on the home folder itself, taken first: a `run/` folder or
a `host.lock` removed while a host runs would otherwise let a second host take a new
file's lock and write its pid there, and two hosts would share state.db.

A second lock, `<home>/run/start.lock`, is held by a host from before it takes the
host lock until it serves. Hosts started at once (parallel CLIs on a home with no
host) queue on it, so each one after the first finds a host that already serves,
which its CLI then uses, instead of one still starting.
"""

import fcntl
import os
import select
from pathlib import Path

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_core.process_locks import flock_within, holder_pid, open_lock_file, take_exclusive

# How long a host waits for another host of its home to finish starting; one that has not
# served by then is stuck (a healthy host serves in well under a second).
START_WAIT_SECONDS = 30.0


def lock_path(home: Path) -> Path:
    return paths.run_dir(home) / "host.lock"


def start_lock_path(home: Path) -> Path:
    return paths.run_dir(home) / "start.lock"


class HostLock:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = lock_path(home)
        self._fd: int | None = None
        self._home_fd: int | None = None

    def acquire(self) -> None:
        home_fd = os.open(self.home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(home_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(home_fd)
            raise self._already_running(_written_pid(self.path)) from None
        taken = take_exclusive(self.path)
        if isinstance(taken, str):
            os.close(home_fd)
            raise self._already_running(taken)
        self._fd, self._home_fd = taken, home_fd

    def _already_running(self, holder: str) -> WardianError:
        return WardianError(
            "request_failed",
            f"a host is already running for this home (pid {holder})",
            "Use it, or stop it first with `wardian host stop`.",
            # The start lock is held until a host serves: this one does (see the module).
            {"pid": holder, "lock": str(self.path), "reason": "already_running"},
        )

    def release(self) -> None:
        for fd in (self._fd, self._home_fd):
            if fd is not None:
                os.close(fd)
        self._fd = self._home_fd = None


def _written_pid(path: Path) -> str:
    """The pid the running host wrote in its lock file; `unknown` when the file is gone."""
    try:
        return path.read_text().strip() or "unknown"
    except OSError:
        return "unknown"


class StartLock:
    """Held from before a host takes the host lock until it serves (see the module)."""

    def __init__(self, home: Path) -> None:
        self.path = start_lock_path(home)
        self._fd: int | None = None

    def acquire(self, timeout: float = START_WAIT_SECONDS) -> None:
        fd = open_lock_file(self.path)
        if not flock_within(fd, fcntl.LOCK_EX, timeout):
            raise WardianError(
                "control_endpoint_timeout",
                f"another host of this home was still starting after {timeout:.0f} s",
                "See `wardian host logs`; if a host is stuck, end it and start again.",
                {"lock": str(self.path), "timeout_seconds": timeout},
            )
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def running_host_pid(home: Path) -> int | None:
    """The pid of the live host of `home`, or None (probing the lock without taking it for long)."""
    return holder_pid(lock_path(home))


def wait_until_released(home: Path, timeout: float) -> bool:
    """Block until no host holds the lock (the kernel drops it when the host exits)."""
    path = lock_path(home)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    done = flock_within(fd, fcntl.LOCK_SH, timeout)  # blocks while the host holds LOCK_EX
    if done:
        os.close(fd)
    return done


def wait_until_gone(pid: int, timeout: float) -> bool:
    """Block until process `pid` has ended; False if it still runs after `timeout`. The host lets
    its lock go before the interpreter's teardown, so a released lock does not yet mean that."""
    try:
        fd = os.pidfd_open(pid)  # readable once the process has exited
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):  # no pidfd on this system: psutil polls
        return _polled_until_gone(pid, timeout)
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _polled_until_gone(pid: int, timeout: float) -> bool:
    import psutil

    try:
        psutil.Process(pid).wait(timeout)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return False
    return True
