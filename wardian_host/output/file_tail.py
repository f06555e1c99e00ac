"""Following a file another process appends to (a hook's JSONL, a session log), without polling.

On Linux the folder is watched with inotify (through libc: the standard library has
no binding), so a line is read when it is written, and a file that does not exist
yet is picked up when it appears. Elsewhere a slow timer stands in.
"""

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import os
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

_IN_MODIFY, _IN_CLOSE_WRITE, _IN_MOVED_TO, _IN_CREATE = 0x2, 0x8, 0x80, 0x100
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000
FALLBACK_INTERVAL_SECONDS = 0.5


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6", use_errno=True)
        return libc if hasattr(libc, "inotify_init1") else None
    except OSError:
        return None


class FileTail:
    def __init__(self, loop: asyncio.AbstractEventLoop, path: Path, on_line: Callable[[bytes], None]) -> None:
        self._loop = loop
        self.path = path
        self._on_line = on_line
        self._offset = 0
        self._partial = b""
        self._notify_fd: int | None = None
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        libc = _libc()
        if libc is not None:
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            mask = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE
            if fd >= 0 and libc.inotify_add_watch(fd, os.fsencode(self.path.parent), mask) >= 0:
                self._notify_fd = fd
                self._loop.add_reader(fd, self._on_notify)
            elif fd >= 0:
                os.close(fd)
        if self._notify_fd is None:
            self._schedule_fallback()
        self._read_new()  # what was written before we watched

    def _on_notify(self) -> None:
        if self._notify_fd is not None:
            with contextlib.suppress(BlockingIOError):  # another wake-up already drained it
                os.read(self._notify_fd, 65536)
        self._read_new()

    def _schedule_fallback(self) -> None:
        self._timer = self._loop.call_later(FALLBACK_INTERVAL_SECONDS, self._fallback_tick)

    def _fallback_tick(self) -> None:
        self._read_new()
        self._schedule_fallback()

    def _read_new(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                if os.fstat(handle.fileno()).st_size < self._offset:
                    self._offset, self._partial = 0, b""  # truncated or replaced: start over
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if line.strip():
                try:
                    self._on_line(line)
                except Exception:
                    log.exception("handling a line of %s failed", self.path)

    def close(self) -> None:
        if self._notify_fd is not None:
            self._loop.remove_reader(self._notify_fd)
            os.close(self._notify_fd)
            self._notify_fd = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
