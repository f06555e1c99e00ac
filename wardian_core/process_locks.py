"""Locks that say "one such process per home": a flock on a file under `<home>/run/`.

The kernel releases a flock when its holder dies, however it dies, so a lock that can be
taken means whatever the last holder left (a socket file) is stale. The holder writes its
pid into the file, for the messages of those who find it taken. The host (`host.lock`) and
the terminal server (`terminal-server.lock`) each hold one.
"""

import fcntl
import os
import threading
from pathlib import Path

from wardian_core.atomic_files import open_unfollowed
from wardian_core.control import endpoint


def open_lock_file(path: Path) -> int:
    endpoint.ensure_private_dir(path.parent)
    return open_unfollowed(path, os.O_RDWR | os.O_CREAT, 0o600)


def flock_within(fd: int, operation: int, timeout: float) -> bool:
    """Take a flock, waiting at most `timeout` seconds; False when it is still held then.

    flock has no timeout, so a thread blocks in it while this one waits on an event. A
    thread that lost the race keeps blocking: the process gives up and exits (or moves on)
    and the kernel drops whatever that thread gets with the descriptor."""
    try:
        fcntl.flock(fd, operation | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    taken = threading.Event()

    def take() -> None:
        fcntl.flock(fd, operation)
        taken.set()

    threading.Thread(target=take, daemon=True).start()
    return taken.wait(timeout)


def take_exclusive(path: Path) -> int | str:
    """The descriptor holding `path`'s lock, with this pid written in; else the holder's pid as it wrote it."""
    fd = open_lock_file(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        return holder
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def holder_pid(path: Path) -> int | None:
    """The pid of the live holder of `path`'s lock, or None (probing it without taking it for long)."""
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
