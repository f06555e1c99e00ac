"""The host's full garbage collections: frozen start-up, and full collections on its own timer."""

import asyncio
import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wardian_host.daemon import gc_schedule, process


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """The collector as the test found it: the host's settings are process-wide."""
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()
    gc.enable()


class _ServingHost:
    """A host that is ready at once and stops: what `_run_host` does around it is under test."""

    def __init__(self, home: Path) -> None:
        self.home = home

    async def run(self, on_ready: Callable[[], None]) -> None:
        on_ready()


def test_a_serving_host_freezes_start_up_collects_again_and_owns_full_collections(
    restored_gc: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(process, "Host", _ServingHost)
    gc.unfreeze()
    gc.disable()  # as the host's `__main__` starts it
    before = gc.get_threshold()
    ready: list[bool] = []
    asyncio.run(process._run_host(tmp_path, lambda: ready.append(gc.get_freeze_count() == 0)))
    assert ready == [True]  # the CLI is told ready before the collection
    assert gc.get_freeze_count() > 1000  # modules, classes and schemas out of collection
    young, middle, full = gc.get_threshold()
    assert (young, middle) == before[:2]  # the young generations collect as before
    assert full == gc_schedule.NEVER  # CPython never starts a full collection itself
    assert gc.isenabled()  # off for start-up only: the young generations collect again


@pytest.mark.parametrize(
    ("since_last", "late", "due"),
    [
        (5.0, 0.0, False),  # too soon, however quiet
        (gc_schedule.FULL_EVERY_SECONDS, 0.0005, True),  # a quiet moment, once due
        (gc_schedule.FULL_EVERY_SECONDS + 10, 0.05, False),  # the loop was busy: wait for a quiet one
        (gc_schedule.FULL_AT_MOST_SECONDS, 0.05, True),  # busy or not: garbage stays bounded
    ],
)
def test_a_full_collection_waits_for_a_quiet_moment_within_a_bound(since_last: float, late: float, due: bool) -> None:
    assert gc_schedule.FullCollections.due(since_last, late) is due


def test_the_timer_runs_full_collections(restored_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_schedule, "CHECK_SECONDS", 0.01)
    monkeypatch.setattr(gc_schedule, "FULL_EVERY_SECONDS", 0.0)
    monkeypatch.setattr(gc_schedule, "QUIET_LATENESS_SECONDS", 3600.0)  # every check is quiet here

    async def collections_seen() -> int:
        collections = gc_schedule.FullCollections(asyncio.get_running_loop())
        collections.start()
        seen = asyncio.Event()
        generations: list[int] = []

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "stop" and info["generation"] == 2:
                generations.append(2)
                seen.set()

        gc.callbacks.append(on_gc)
        try:
            await asyncio.wait_for(seen.wait(), 30)
        finally:
            gc.callbacks.remove(on_gc)
            collections.stop()
        return len(generations)

    assert asyncio.run(collections_seen()) >= 1
