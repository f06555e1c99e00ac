"""Following a file another process appends to (a hook's JSONL, a session log), without polling.

On Linux the folder is watched with inotify (`inotify.py`), so a line is read when it is
written, and a file that does not exist yet is picked up when it appears. Elsewhere a
slow timer stands in.
"""

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from wardian_host.output.inotify import (
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_MODIFY,
    IN_MOVED_TO,
    IN_Q_OVERFLOW,
    Inotify,
    open_inotify,
)

log = logging.getLogger(__name__)

FALLBACK_INTERVAL_SECONDS = 0.5


class FileTail:
    def __init__(
        self, loop: asyncio.AbstractEventLoop, path: Path, on_line: Callable[[bytes], None], start_at_end: bool = False
    ) -> None:
        self._loop = loop
        self.path = path
        self._on_line = on_line
        self._start_at_end = start_at_end
        self._offset = 0
        self._partial = b""
        self._notify: Inotify | None = None
        self._timer: asyncio.TimerHandle | None = None

    @property  # tests/test_file_tail.py checks through it that inotify, not the timer, is in use
    def _notify_fd(self) -> int | None:
        return None if self._notify is None else self._notify.fd

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._start_at_end:
            # A complete last line is history; a line still being written is not yet.
            with contextlib.suppress(OSError):
                self._offset = _end_of_last_line(self.path)
        self._notify = open_inotify(self._loop, self._on_notify)
        mask = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE
        if self._notify is not None and not self._notify.watch(self.path.parent, mask):
            self._notify.close()
            self._notify = None
        if self._notify is None:
            self._schedule_fallback()
        self._read_new()  # what was written before we watched

    def _on_notify(self, folder: Path, name: str, mask: int) -> None:
        # The folder's other files are someone else's; an overflow may have hidden ours.
        if name == self.path.name or mask & IN_Q_OVERFLOW:
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
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _end_of_last_line(path: Path) -> int:
    """The offset just after the file's last newline (only its tail is read)."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - 65536))
        tail = handle.read()
    newline = tail.rfind(b"\n")
    return size - len(tail) + newline + 1 if newline >= 0 else max(0, size - len(tail))
