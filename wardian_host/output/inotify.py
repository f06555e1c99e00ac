"""Linux inotify through libc (the standard library has no binding), on the asyncio loop.

One inotify descriptor watches several folders; each event is handed on as (the watched
folder, the name in it, the event mask). `open_inotify` answers None where inotify is
missing (not Linux, or the per-user limit of instances is reached) and under the portable
backend, so callers fall back to polling (`polling.py`) just as they would on macOS.
"""

import asyncio
import ctypes
import ctypes.util
import functools
import logging
import os
import struct
from collections.abc import Callable
from pathlib import Path

from wardian_core import pty_backend

log = logging.getLogger(__name__)

# The kernel's names (linux/inotify.h), so they can be looked up in inotify(7).
IN_MODIFY = 0x2
IN_CLOSE_WRITE = 0x8
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000
_EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of NUL-padded name

OnEvent = Callable[[Path, str, int], None]


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6", use_errno=True)
    except OSError:
        return None
    return libc if hasattr(libc, "inotify_init1") else None


class Inotify:
    """Watches folders with one descriptor; calls `on_event(folder, name, mask)` for each event.

    On a queue overflow every watched folder gets an event with an empty name and
    IN_Q_OVERFLOW (the kernel dropped events: look again). A folder whose watch the kernel
    removed (deleted, or unwatched) gets IN_IGNORED and is no longer counted.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, libc: ctypes.CDLL, fd: int, on_event: OnEvent) -> None:
        self._loop = loop
        self._libc = libc
        self.fd: int | None = fd
        self._on_event = on_event
        self._folders: dict[int, Path] = {}
        self._descriptors: dict[Path, int] = {}
        loop.add_reader(fd, self._on_readable)

    def __len__(self) -> int:
        return len(self._folders)

    def __contains__(self, folder: Path) -> bool:
        return folder in self._descriptors

    def watch(self, folder: Path, mask: int) -> bool:
        """Start watching `folder` (again: the kernel merges it); False when the kernel refuses."""
        if self.fd is None:
            return False
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), ctypes.c_uint32(mask))
        if wd < 0:
            log.debug("inotify refused %s: %s", folder, os.strerror(ctypes.get_errno()))
            return False
        self._forget(wd)  # the same folder reached by another path keeps one descriptor
        self._folders[wd], self._descriptors[folder] = folder, wd
        return True

    def unwatch(self, folder: Path) -> None:
        if self.fd is None:
            return
        wd = self._descriptors.get(folder)
        if wd is not None:
            self._libc.inotify_rm_watch(self.fd, wd)  # the kernel then sends IN_IGNORED

    def close(self) -> None:
        if self.fd is not None:
            self._loop.remove_reader(self.fd)
            os.close(self.fd)
            self.fd = None
            self._folders.clear()
            self._descriptors.clear()

    def _forget(self, wd: int) -> Path | None:
        folder = self._folders.pop(wd, None)
        # A folder deleted and made again is watched under a new descriptor before the old one's
        # IN_IGNORED arrives: keep the new one.
        if folder is not None and self._descriptors.get(folder) == wd:
            del self._descriptors[folder]
        return folder

    def _on_readable(self) -> None:
        while self.fd is not None:
            try:
                buffer = os.read(self.fd, 65536)
            except BlockingIOError:  # drained
                return
            for wd, mask, name in _events(buffer):
                self._dispatch(wd, mask, name)

    def _dispatch(self, wd: int, mask: int, name: str) -> None:
        if mask & IN_Q_OVERFLOW:
            targets = list(self._folders.values())
        elif mask & IN_IGNORED:
            folder = self._forget(wd)
            targets = [] if folder is None else [folder]
        else:
            targets = [self._folders[wd]] if wd in self._folders else []
        for folder in targets:
            try:
                self._on_event(folder, name, mask)
            except Exception:
                log.exception("handling an inotify event in %s failed", folder)


def _events(buffer: bytes) -> list[tuple[int, int, str]]:
    events, offset = [], 0
    while offset + _EVENT_HEADER.size <= len(buffer):
        wd, mask, _cookie, length = _EVENT_HEADER.unpack_from(buffer, offset)
        offset += _EVENT_HEADER.size
        name = os.fsdecode(buffer[offset : offset + length].rstrip(b"\0"))
        offset += length
        events.append((wd, mask, name))
    return events


def open_inotify(loop: asyncio.AbstractEventLoop, on_event: OnEvent) -> Inotify | None:
    """An inotify watcher on `loop`, or None where inotify is unavailable or the backend is portable."""
    if pty_backend.portable():
        return None
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        log.info("inotify is unavailable (%s): polling instead", os.strerror(ctypes.get_errno()))
        return None
    return Inotify(loop, libc, fd, on_event)
