"""One host per home: an exclusive lock held for the host's whole life.

The lock (flock on `<home>/run/host.lock`) is released by the kernel when the host
dies, however it dies, so a lock that can be taken means any socket file left
behind belongs to a dead host and may be replaced.
"""

import fcntl
import os
from pathlib import Path

from wardian_core import paths
from wardian_core.control import endpoint
from wardian_core.errors import WardianError


def lock_path(home: Path) -> Path:
    return paths.run_dir(home) / "host.lock"


class HostLock:
    def __init__(self, home: Path) -> None:
        self.path = lock_path(home)
        self._fd: int | None = None

    def acquire(self) -> None:
        endpoint.ensure_private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise WardianError(
                "request_failed",
                f"a host is already running for this home (pid {holder})",
                "Use it, or stop it first with `wardian host stop`.",
                {"pid": holder, "lock": str(self.path)},
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def running_host_pid(home: Path) -> int | None:
    """The pid of the live host of `home`, or None (probing the lock without taking it for long)."""
    path = lock_path(home)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        return int(text) if text.isdigit() else -1
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def wait_until_released(home: Path, timeout: float) -> bool:
    """Block until no host holds the lock (the kernel drops it when the host exits)."""
    import threading

    path = lock_path(home)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    released = threading.Event()

    def wait() -> None:
        fcntl.flock(fd, fcntl.LOCK_SH)  # blocks while the host holds LOCK_EX
        released.set()

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    done = released.wait(timeout)
    if done:
        os.close(fd)
    return done
