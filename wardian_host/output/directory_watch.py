"""Reporting the files that appear in a folder tree (a session folder per day, say).

Codex writes `sessions/YYYY/MM/DD/rollout-*.jsonl` and makes the day's folders as it goes,
so folders made after the watch started are followed too. On Linux each folder is watched
with inotify. A folder can fill before its watch is added (`makedirs` then a write, in a
few microseconds): a new folder is therefore listed once right after its watch is added.
Elsewhere, and under the portable backend, each folder is polled (`polling.py`): one stat
a tick, and a listing only of the folders whose stamp moved (a new entry changes its
folder's modification time), never the whole tree.

A watch resumed from a previous host's position (`wardian_core.telemetry_positions`) knows
the files that host knew; it hands those it reported to `on_replay` again, in order (its
parser's state is rebuilt), and reports each file that appeared while no host watched.
"""

import asyncio
import fnmatch
import logging
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from wardian_core.telemetry_positions import FolderPosition
from wardian_host.output.inotify import (
    IN_CREATE,
    IN_DONT_FOLLOW,
    IN_ISDIR,
    IN_MOVE_SELF,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    Inotify,
    open_inotify,
)
from wardian_host.output.polling import FOLDER_CEILING_SECONDS, Poller, PollWatch, Stamp, shared_poller, stamp

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # folders below the root; Codex needs three (YYYY/MM/DD)
# inotify watches are a per-user kernel budget shared with every other program; polled
# folders cost a stat each per tick.
MAX_FOLDERS = 1024
# A folder's modification time is only as fine as its file system's clock (HFS+ a second,
# FAT two, Linux's coarse clock a few ms): an entry added just after a listing may leave it
# unchanged. A folder changed this recently is listed again at the next tick, until it is not.
MTIME_GRANULARITY_NS = 2_000_000_000
_FOLDER_MASK = IN_CREATE | IN_MOVED_TO | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW


class DirectoryWatch:
    """Calls `on_line(path)` once for each file named like `pattern` that appears under `root`.

    `path` is relative to `root`, with `/` separators, UTF-8. Files there before `start()`
    are not reported; `start()` lists the existing tree once (bounded by MAX_DEPTH and
    MAX_FOLDERS) to tell them apart.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        root: Path,
        pattern: str,
        on_line: Callable[[bytes], object],
        resume: FolderPosition | None = None,
        on_replay: Callable[[bytes], object] | None = None,
    ) -> None:
        self._loop = loop
        self.root = root
        self.pattern = pattern
        self._on_line = on_line
        self._resume = resume
        self._on_replay = on_replay or on_line
        self._known: set[Path] = set()  # relative paths reported, or there at start
        self._reported: list[Path] = []  # in the order reported
        self._notify: Inotify | None = None
        # Polling: each followed folder's stamp when last listed (None: list it at the next tick).
        self._folders: dict[Path, Stamp | None] = {}
        self._poller: Poller | None = None
        self._poll_watch: PollWatch | None = None
        self._closed = False
        self._warned_full = False

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # Resumed, what is there and unknown appeared while no host watched: it is news.
        report = self._resume is not None
        if self._resume is not None:
            self._take_over(self._resume)
        self._notify = open_inotify(self._loop, self._on_event)
        if self._notify is not None and self._add_tree(self.root, report=report):
            return
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        self._add_tree(self.root, report=report)
        self._poller = shared_poller(self._loop)
        self._poll_watch = self._poller.add(self._poll, FOLDER_CEILING_SECONDS)

    def _take_over(self, resume: FolderPosition) -> None:
        self._known = {Path(relative) for relative in resume.known}
        for relative in resume.reported:
            self._reported.append(Path(relative))
            self._known.add(Path(relative))
            self._deliver(relative.encode("utf-8", "surrogateescape"), self._on_replay)

    def position(self) -> FolderPosition:
        known = sorted(relative.as_posix() for relative in self._known)
        return FolderPosition(known=known, reported=[relative.as_posix() for relative in self._reported])

    def close(self) -> None:
        self._closed = True
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        if self._poller is not None and self._poll_watch is not None:
            self._poller.remove(self._poll_watch)
            self._poller = self._poll_watch = None

    def _on_event(self, folder: Path, name: str, mask: int) -> None:
        if mask & IN_Q_OVERFLOW:
            # The kernel dropped events: catch up, once (every watched folder hears of it).
            if folder == self.root:
                self._add_tree(folder, report=True)
        elif mask & IN_MOVE_SELF and self._notify is not None and folder != self.root:
            # Its path is stale now; if it moved within the tree, its new parent reports it.
            self._notify.unwatch(folder)
        elif mask & (IN_CREATE | IN_MOVED_TO):
            path = folder / name
            if mask & IN_ISDIR:
                self._add_tree(path, report=True)
            elif _is_regular_file(path):
                self._found(path, report=True)

    def _poll(self) -> bool:
        """List the folders whose stamp moved; True when a file or folder came or went."""
        known, folders = len(self._known), len(self._folders)
        for folder, seen in list(self._folders.items()):
            if self._closed:
                break
            current = stamp(folder)
            if current is None and folder != self.root:  # removed; the root is awaited back
                self._folders.pop(folder, None)
            elif current != seen:  # also each tick while its stamp is unsettled (None)
                self._add_tree(folder, report=True)
        return len(self._known) != known or len(self._folders) != folders

    def _add_tree(self, top: Path, *, report: bool) -> bool:
        """Follow `top` and the folders below it, and take in their files (reporting new ones with `report`).

        False when the root cannot be followed.
        """
        pending = [top]
        while pending and not self._closed:
            folder = pending.pop()
            if not self._follow(folder):
                if folder == self.root:
                    return False
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            below = Path(entry.path)
                            # A polled folder is looked at on its own: a change above it is no news of it.
                            if self._notify is not None or below not in self._folders:
                                pending.append(below)
                        elif entry.is_file(follow_symlinks=False):
                            self._found(Path(entry.path), report=report)
            except OSError:  # removed meanwhile: its IN_IGNORED, or its next stamp, cleans up
                continue
        return True

    def _follow(self, folder: Path) -> bool:
        """Watch `folder` (inotify) or stamp it before it is listed (polling); False past the bounds."""
        notify = self._notify
        followed = folder in notify if notify is not None else folder in self._folders
        if not followed:
            if len(folder.relative_to(self.root).parts) > MAX_DEPTH:
                return False
            if (len(notify) if notify is not None else len(self._folders)) >= MAX_FOLDERS:
                if not self._warned_full:
                    log.warning("following %d folders under %s already: not following more", MAX_FOLDERS, self.root)
                    self._warned_full = True
                return False
        if notify is not None:
            return followed or notify.watch(folder, _FOLDER_MASK)
        self._folders[folder] = _settled_stamp(folder)
        return True

    def _found(self, path: Path, *, report: bool) -> None:
        if not fnmatch.fnmatch(path.name, self.pattern):
            return
        relative = path.relative_to(self.root)
        if relative in self._known:
            return
        self._known.add(relative)
        if not report:
            return
        self._reported.append(relative)
        self._deliver(relative.as_posix().encode("utf-8", "surrogateescape"), self._on_line)

    def _deliver(self, name: bytes, handler: Callable[[bytes], object]) -> None:
        try:
            handler(name)
        except Exception:
            log.exception("handling a new file under %s failed", self.root)


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _settled_stamp(folder: Path) -> Stamp | None:
    """The folder's stamp, or None while it changed too recently for its time to be trusted."""
    now = time.time_ns()
    current = stamp(folder)
    if current is None or now - current.mtime_ns < MTIME_GRANULARITY_NS:
        return None
    return current
