"""Repeated log lines of one kind, bounded per peer and in all.

A client that floods the control socket (30,000 one-frame connections in 10 s) must not
rotate the host's log history away, one line per connection. In each window (a minute)
every peer (a pid) gets a few lines of a kind and all peers together a few dozen; the
lines past either budget are counted, and the first line of that kind after the window
turns says how many were left out and from how many peers.
"""

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WINDOW_SECONDS = 60.0
LINES_PER_PEER = 3
LINES_OVERALL = 30


@dataclass
class _Window:
    started: float
    lines_by_peer: Counter[int] = field(default_factory=Counter)
    logged: int = 0
    left_out: int = 0
    left_out_peers: set[int] = field(default_factory=set)


class LogThrottle:
    def __init__(
        self,
        logger: logging.Logger,
        *,
        window_seconds: float = WINDOW_SECONDS,
        per_peer: int = LINES_PER_PEER,
        overall: int = LINES_OVERALL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._window_seconds = window_seconds
        self._per_peer = per_peer
        self._overall = overall
        self._clock = clock
        self._windows: dict[str, _Window] = {}

    def log(self, level: int, kind: str, peer: int, message: str, *args: Any, exc_info: bool = False) -> bool:
        """Log `message` unless `peer`, or every peer together, used this window's budget of `kind`."""
        window = self._current(kind)
        if window.lines_by_peer[peer] >= self._per_peer or window.logged >= self._overall:
            window.left_out += 1
            window.left_out_peers.add(peer)
            return False
        window.lines_by_peer[peer] += 1
        window.logged += 1
        self._logger.log(level, message, *args, exc_info=exc_info)
        return True

    def _current(self, kind: str) -> _Window:
        now = self._clock()
        window = self._windows.get(kind)
        if window is not None and now - window.started < self._window_seconds:
            return window
        if window is not None and window.left_out:
            self._logger.warning(
                "left out %d more '%s' lines from %d peers in %.0f s",
                window.left_out,
                kind,
                len(window.left_out_peers),
                now - window.started,
            )
        self._windows[kind] = fresh = _Window(now)
        return fresh
