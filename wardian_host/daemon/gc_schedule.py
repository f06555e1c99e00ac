"""The host's full garbage collections, run when its loop has a quiet moment.

CPython starts a full (generation 2) collection from whichever allocation trips its
threshold: in the host, that is in the middle of a burst of parsing, and a full collection
walks every object the host holds (start-up alone leaves ~46,000: modules, classes, pydantic
schemas). Measured in `benchmarks/host.py` (e), one stalled the loop 143-174 ms about once a
run. So once the host serves, what start-up built is frozen out of collection for good, the
automatic full collections are turned off, and a timer runs them instead: at the first quiet
moment (the timer fired on time, so nothing was queued before it) once `FULL_EVERY_SECONDS`
passed, and after `FULL_AT_MOST_SECONDS` whatever the load, so cyclic garbage that outlived
the young generations cannot pile up without limit. The young generations collect as before.
"""

import asyncio
import gc

FULL_EVERY_SECONDS = 30.0
FULL_AT_MOST_SECONDS = 120.0
CHECK_SECONDS = 0.5
# A timer this late had a loop turn before it: not a quiet moment.
QUIET_LATENESS_SECONDS = 0.002
# Generation 2's threshold counts generation-1 collections: this many never come between two
# scheduled collections (about one per 7,000 allocations), so CPython never starts one itself.
NEVER = 1_000_000_000


class FullCollections:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._last = loop.time()
        self._check: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Collect and freeze what start-up left (garbage frozen would never be freed), then
        take full collections over from CPython. The host's `__main__` turned collection off
        for its start-up: it is on from here."""
        gc.collect()
        gc.freeze()
        gc.enable()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)
        self._last = self._loop.time()
        self._schedule()

    def stop(self) -> None:
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def _schedule(self) -> None:
        self._check = self._loop.call_at(self._loop.time() + CHECK_SECONDS, self._on_check)

    def _on_check(self) -> None:
        now = self._loop.time()
        assert self._check is not None  # this callback is its handle's
        late = now - self._check.when()
        if self.due(now - self._last, late):
            gc.collect(2)
            self._last = self._loop.time()
        self._schedule()

    @staticmethod
    def due(since_last: float, late: float) -> bool:
        if since_last >= FULL_AT_MOST_SECONDS:
            return True
        return since_last >= FULL_EVERY_SECONDS and late <= QUIET_LATENESS_SECONDS
