"""Following a file another process appends to (a hook's JSONL, a session log).

On Linux the folder is watched with inotify (`inotify.py`), so a line is read when it is
written, and a file that does not exist yet is picked up when it appears. Elsewhere, and
under the portable backend, the file is polled (`polling.py`): one stat a tick, and a read
only when its size, time or inode moved.

A tail resumed from a previous host's position (`wardian_core.telemetry_positions`) begins
where that host began, hands what that host read to `on_replay` (its parser's state is
rebuilt, its events were reported then) and the rest to `on_line`. A handler that answers
True for a line (its parser is at rest after it) moves where reading began past it: a log of
weeks is replayed from its last rest, not from its first line.

A file is read at most `READ_CHUNK_BYTES` a loop turn, the rest on the next: a long-lived
agent's log can hold weeks of hooks, all replayed when a new host resumes it, and that must
not hold the loop other agents' statuses go through.
"""

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from wardian_core.telemetry_positions import FilePosition
from wardian_host.output.inotify import (
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_MODIFY,
    IN_MOVED_TO,
    IN_Q_OVERFLOW,
    Inotify,
    open_inotify,
)
from wardian_host.output.polling import FILE_CEILING_SECONDS, Poller, PollWatch, Stamp, shared_poller, stamp

log = logging.getLogger(__name__)

# Called with each complete line; True: its parser is at rest after it (`ParseResult.at_rest`).
LineHandler = Callable[[bytes], bool | None]
# Parsed at about 10-20 ms a MB (a Claude hook log): a few milliseconds of the loop a turn.
READ_CHUNK_BYTES = 256 * 1024


class FileTail:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        path: Path,
        on_line: LineHandler,
        start_at_end: bool = False,
        resume: FilePosition | None = None,
        on_replay: LineHandler | None = None,
    ) -> None:
        self._loop = loop
        self.path = path
        self._on_line = on_line
        self._start_at_end = start_at_end
        self._resume = resume
        self._on_replay = on_replay or on_line
        self._start = 0  # where reading began: a resumed tail begins there again
        self._replay_until = 0  # lines ending by here were read by the previous host
        self._offset = 0
        self._partial = b""
        self._line_end = 0  # the end of the line handed on last
        # The (device, inode) read last: another file in its place is read from its start.
        self._identity: tuple[int, int] | None = None
        self._notify: Inotify | None = None
        self._poller: Poller | None = None
        self._poll_watch: PollWatch | None = None
        self._seen: Stamp | None = None  # polling: the stamp when last read
        self._more: asyncio.Handle | None = None  # the read of the next chunk, when one is due

    @property  # tests/test_file_tail.py checks through it that inotify, not polling, is in use
    def _notify_fd(self) -> int | None:
        return None if self._notify is None else self._notify.fd

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._resume is not None and _same_file(self.path, self._resume):
            self._identity = _identity(self._resume)
            self._start = self._offset = self._resume.start
            self._replay_until = self._resume.read
        elif self._start_at_end:
            # A complete last line is history; a line still being written is not yet.
            with contextlib.suppress(OSError):
                self._start = self._offset = _end_of_last_line(self.path)
        self._notify = open_inotify(self._loop, self._on_notify)
        mask = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE
        if self._notify is not None and not self._notify.watch(self.path.parent, mask):
            self._notify.close()
            self._notify = None
        if self._notify is None:
            self._poller = shared_poller(self._loop)
            self._poll_watch = self._poller.add(self._poll, FILE_CEILING_SECONDS)
        self._seen = stamp(self.path)
        self._read_new()  # what was written before we watched

    def _on_notify(self, folder: Path, name: str, mask: int) -> None:
        # The folder's other files are someone else's; an overflow may have hidden ours.
        if name == self.path.name or mask & IN_Q_OVERFLOW:
            self._read_new()

    def _poll(self) -> bool:
        current = stamp(self.path)
        if current == self._seen:
            return False  # nothing written: not even opened
        self._seen = current  # before reading, so a write meanwhile is seen by the next look
        self._read_new()
        return True

    def _read_new(self) -> None:
        self._cancel_more()
        try:
            with open(self.path, "rb") as handle:
                status = os.fstat(handle.fileno())
                identity = (status.st_dev, status.st_ino)
                if status.st_size < self._offset or self._identity not in (None, identity):
                    # Truncated or replaced: start over, and a previous host read none of it.
                    self._start = self._offset = self._replay_until = 0
                    self._partial = b""
                self._identity = identity
                handle.seek(self._offset)
                data = handle.read(READ_CHUNK_BYTES)
        except FileNotFoundError:
            return
        if len(data) == READ_CHUNK_BYTES:
            self._more = self._loop.call_soon(self._read_new)
        end = self._offset - len(self._partial)  # where the pending partial line began
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            end += len(line) + 1
            if not line.strip():
                continue
            self._line_end = end
            if self._deliver(line, replayed=end <= self._replay_until):
                self._start = end

    def _deliver(self, line: bytes, replayed: bool) -> bool:
        """Whether the line's parser is at rest after it."""
        try:
            return (self._on_replay if replayed else self._on_line)(line) is True
        except Exception:
            log.exception("handling a line of %s failed", self.path)
            return False

    def position(self, at_rest: bool = False) -> FilePosition:
        """How far the tail read: the end of its last complete line. `at_rest`: asked by the
        handler of the line handed on last, whose parser is at rest after it (the tail learns
        that only once the handler returns): a next host begins after that line."""
        device, inode = self._identity or (None, None)
        read = self._offset - len(self._partial)
        start = self._line_end if at_rest else self._start
        return FilePosition(start=start, read=read, device=device, inode=inode)

    def _cancel_more(self) -> None:
        if self._more is not None:
            self._more.cancel()
            self._more = None

    def close(self) -> None:
        self._cancel_more()
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        if self._poller is not None and self._poll_watch is not None:
            self._poller.remove(self._poll_watch)
            self._poller = self._poll_watch = None


def _identity(position: FilePosition) -> tuple[int, int] | None:
    if position.device is None or position.inode is None:
        return None
    return (position.device, position.inode)


def _same_file(path: Path, position: FilePosition) -> bool:
    """Whether `path` is still the file `position` was read in (or, unread then, any file)."""
    try:
        status = path.stat()
    except OSError:
        return _identity(position) is None
    recorded = _identity(position)
    return recorded in (None, (status.st_dev, status.st_ino)) and status.st_size >= position.read


def _end_of_last_line(path: Path) -> int:
    """The offset just after the file's last newline (only its tail is read)."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - 65536))
        tail = handle.read()
    newline = tail.rfind(b"\n")
    return size - len(tail) + newline + 1 if newline >= 0 else max(0, size - len(tail))
