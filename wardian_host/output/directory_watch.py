"""Reporting the files that appear in a folder tree (a session folder per day, say), without polling.

Codex writes `sessions/YYYY/MM/DD/rollout-*.jsonl` and makes the day's folders as it goes,
so folders made after the watch started are watched too. A folder can fill before its
watch is added (`makedirs` then a write, in a few microseconds): a new folder is therefore
listed once right after its watch is added. Where inotify is missing, the tree is scanned
every half second in a worker thread.
"""

import asyncio
import fnmatch
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path

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

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # folders below the root; Codex needs three (YYYY/MM/DD)
MAX_FOLDERS = 1024  # inotify watches are a per-user kernel budget shared with every other program
SCAN_INTERVAL_SECONDS = 0.5
_FOLDER_MASK = IN_CREATE | IN_MOVED_TO | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW


class DirectoryWatch:
    """Calls `on_line(path)` once for each file named like `pattern` that appears under `root`.

    `path` is relative to `root`, with `/` separators, UTF-8. Files there before `start()`
    are not reported; `start()` lists the existing tree once (bounded by MAX_DEPTH and
    MAX_FOLDERS) to tell them apart.
    """

    def __init__(
        self, loop: asyncio.AbstractEventLoop, root: Path, pattern: str, on_line: Callable[[bytes], None]
    ) -> None:
        self._loop = loop
        self.root = root
        self.pattern = pattern
        self._on_line = on_line
        self._known: set[Path] = set()  # relative paths reported, or (when scanning) there at start
        self._notify: Inotify | None = None
        self._scanner: asyncio.Task[None] | None = None
        self._warned_full = False

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self._notify = open_inotify(self._loop, self._on_event)
        if self._notify is not None and self._watch_tree(self.root, report=False):
            return
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        self._known = _scan(self.root, self.pattern)
        self._scanner = self._loop.create_task(self._scan_periodically())

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
            self._notify = None
        if self._scanner is not None:
            self._scanner.cancel()
            self._scanner = None

    def _on_event(self, folder: Path, name: str, mask: int) -> None:
        if mask & IN_Q_OVERFLOW:
            # The kernel dropped events: catch up on the folders missed, once (every watched
            # folder hears of it). Files made meanwhile in folders already watched cannot be
            # told from older ones, so they are lost.
            if folder == self.root:
                self._watch_tree(folder, report=True)
        elif mask & IN_MOVE_SELF and self._notify is not None and folder != self.root:
            # Its path is stale now; if it moved within the tree, its new parent reports it.
            self._notify.unwatch(folder)
        elif mask & (IN_CREATE | IN_MOVED_TO):
            path = folder / name
            if mask & IN_ISDIR:
                self._watch_tree(path, report=True)
            elif _is_regular_file(path):
                self._report(path)

    def _watch_tree(self, top: Path, *, report: bool) -> bool:
        """Watch `top` and the folders below it; with `report`, report the files of new folders."""
        notify = self._notify
        pending = [top]
        while pending and notify is not None:
            folder = pending.pop()
            fresh = folder not in notify
            if not self._watch(notify, folder):
                if folder == self.root:
                    return False
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(Path(entry.path))
                        elif report and fresh and entry.is_file(follow_symlinks=False):
                            self._report(Path(entry.path))
            except OSError:  # removed meanwhile: its IN_IGNORED cleans up
                continue
        return True

    def _watch(self, notify: Inotify, folder: Path) -> bool:
        if folder in notify:
            return True
        if len(folder.relative_to(self.root).parts) > MAX_DEPTH:
            return False
        if len(notify) >= MAX_FOLDERS:
            if not self._warned_full:
                log.warning("watching %d folders under %s already: not watching more", MAX_FOLDERS, self.root)
                self._warned_full = True
            return False
        return notify.watch(folder, _FOLDER_MASK)

    async def _scan_periodically(self) -> None:
        while True:
            await asyncio.sleep(SCAN_INTERVAL_SECONDS)
            found = await asyncio.to_thread(_scan, self.root, self.pattern)
            for relative in sorted(found - self._known):
                self._report(self.root / relative)

    def _report(self, path: Path) -> None:
        if not fnmatch.fnmatch(path.name, self.pattern):
            return
        relative = path.relative_to(self.root)
        if relative in self._known:
            return
        self._known.add(relative)
        try:
            self._on_line(relative.as_posix().encode("utf-8", "surrogateescape"))
        except Exception:
            log.exception("handling a new file under %s failed", self.root)


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _scan(root: Path, pattern: str) -> set[Path]:
    """The relative paths of the matching files under `root`, within the same bounds as watching."""
    found: set[Path] = set()
    pending, folders = [(root, 0)], 0
    while pending and folders < MAX_FOLDERS:
        folder, depth = pending.pop()
        folders += 1
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:
                            pending.append((Path(entry.path), depth + 1))
                    elif entry.is_file(follow_symlinks=False) and fnmatch.fnmatch(entry.name, pattern):
                        found.add(Path(entry.path).relative_to(root))
        except OSError:
            continue
    return found
