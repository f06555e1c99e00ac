"""Bounded polling: how files and folders are followed where inotify is missing.

That is macOS and the BSDs, and Linux under the portable backend (`wardian_core.pty_backend`).
A follower registers a check — one `os.stat` that compares a `Stamp` and reads or lists
only when it moved — and one timer per event loop runs every check that is due: however
many agents there are, a wake-up costs one stat per followed file or folder due, not a read.

A check that saw a change is run again soon, because agents write in bursts (a tool call,
then its result, tens of milliseconds apart); a quiet one backs off, doubling, to its
ceiling. The ceiling is the worst latency polling adds: a quarter second for files (a
hook line is an approval prompt or a status change a person is waiting to see, and 400
stats a second for 100 followed files cost well under 1% of a core, see
benchmarks/file_watch.py), a second for folder trees (a new session file is rarer, and a
tree may hold a thousand folders).

kqueue (watchdog's way on macOS) would wake on the event, but needs one open descriptor per
file and cannot be tested on the Linux machines CI runs on; polling is proven there by the
portable backend's run.
"""

import asyncio
import functools
import logging
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

QUICK_SECONDS = 0.05  # the interval right after a change
FILE_CEILING_SECONDS = 0.25
FOLDER_CEILING_SECONDS = 1.0
# Checks due this close to a tick run in it, so checks of the same ceiling fall into step and
# share a wake-up instead of each waking the loop on its own.
SLACK_SECONDS = 0.02

Check = Callable[[], bool]  # looks once; True when it found something new


class Stamp(NamedTuple):
    """What one `os.stat` says of a path that changes when it is written, replaced or truncated."""

    device: int
    inode: int
    size: int
    mtime_ns: int


def stamp(path: Path) -> Stamp | None:
    """The path's stamp, or None when it is not there (or cannot be looked at)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return Stamp(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


@dataclass(eq=False)
class PollWatch:
    check: Check
    ceiling: float
    interval: float
    due: float


class Poller:
    """Runs every registered check when it is due, from one timer on `loop`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_empty: Callable[[], None] = lambda: None) -> None:
        self._loop = loop
        self._on_empty = on_empty
        self._watches: dict[PollWatch, None] = {}  # a set that keeps the order checks were added in
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._watches)

    def add(self, check: Check, ceiling: float) -> PollWatch:
        watch = PollWatch(check, ceiling, QUICK_SECONDS, self._loop.time() + QUICK_SECONDS)
        self._watches[watch] = None
        self._schedule()
        return watch

    def remove(self, watch: PollWatch) -> None:
        self._watches.pop(watch, None)
        if not self._watches:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._on_empty()

    def _schedule(self) -> None:
        if not self._watches:
            return
        due = min(watch.due for watch in self._watches)
        if self._timer is not None and self._timer.when() <= due:
            return  # an earlier tick schedules again
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(due, self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self._loop.time()
        for watch in [watch for watch in self._watches if watch.due <= now + SLACK_SECONDS]:
            if watch not in self._watches:  # an earlier check closed its follower
                continue
            try:
                changed = watch.check()
            except Exception:
                log.exception("a polling check failed")
                changed = False
            watch.interval = QUICK_SECONDS if changed else min(watch.interval * 2, watch.ceiling)
            watch.due = now + watch.interval
        self._schedule()


# The host has one loop, but the followers on it are opened one by one from deep inside the
# feed; a loop's poller is found here, and dropped with its last check.
_POLLERS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Poller]" = weakref.WeakKeyDictionary()


def shared_poller(loop: asyncio.AbstractEventLoop) -> Poller:
    """The one poller of `loop`, made on first use."""
    poller = _POLLERS.get(loop)
    if poller is None:
        poller = _POLLERS[loop] = Poller(loop, functools.partial(_drop, loop))
    return poller


def _drop(loop: asyncio.AbstractEventLoop) -> None:
    _POLLERS.pop(loop, None)
