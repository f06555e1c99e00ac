"""pytest plugin: under pytest-xdist, the longest tests start first, spread over the workers.

`--dist worksteal` hands each worker a contiguous share of the collected items and, once a
worker runs dry, moves the tail of the busiest worker's queue to it. In file order a slow test
(the twenty-agent crash rounds, a real CLI's turn) could start in the run's last minute and hold
one worker long after the others finished. Here every worker's share is filled longest first
from the recorded durations (`test_durations.json`, written from a full run's JUnit reports by
`python3 scripts/dev.py durations`), so the slow tests start at once and what is stolen at the
end is short. A test not recorded yet counts as `UNKNOWN_SECONDS`. A serial run keeps file order.

Tests of a module that shares a module-scoped fixture (the sshd "remote machine") stay
together, so the fixture starts once per share, as in file order.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

DURATIONS_FILE = Path(__file__).with_name("test_durations.json")
UNKNOWN_SECONDS = 0.5


def junit_key(nodeid: str) -> str:
    """The `classname::name` pytest's JUnit report gives the test `nodeid`."""
    path, *names = nodeid.split("::")
    classname = ".".join([re.sub(r"\.py$", "", path.replace("/", ".")), *names[:-1]])
    return f"{classname}::{names[-1]}" if names else classname


def recorded_durations(path: Path = DURATIONS_FILE) -> dict[str, float]:
    try:
        durations: dict[str, float] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return durations


def seconds(item: pytest.Item, durations: dict[str, float]) -> float:
    return durations.get(junit_key(item.nodeid), UNKNOWN_SECONDS)


def share_sizes(count: int, workers: int) -> list[int]:
    """How many of `count` items each worker takes first: worksteal's own split."""
    sizes = []
    for worker in range(workers):
        sizes.append(count // (workers - worker))
        count -= sizes[-1]
    return sizes


def shares_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else []
    return any(fixture.scope in ("module", "package", "class") for defs in definitions for fixture in defs)


def units(items: list[pytest.Item], durations: dict[str, float]) -> list[tuple[float, list[pytest.Item]]]:
    """(seconds, items) of what must stay together: one test, or a module sharing a fixture."""
    grouped: dict[str, list[pytest.Item]] = {}
    for item in items:
        together = shares_module_fixture(item)
        grouped.setdefault(item.nodeid.split("::")[0] if together else item.nodeid, []).append(item)
    timed = [(sum(seconds(item, durations) for item in group), group) for group in grouped.values()]
    return sorted(timed, key=lambda unit: -unit[0])


def longest_first(items: list[pytest.Item], workers: int, durations: dict[str, float]) -> list[pytest.Item]:
    """`items` in worker shares of worksteal's sizes, each filled longest first and balanced by
    seconds: every next unit goes to the share with the fewest seconds that still has room."""
    sizes = share_sizes(len(items), workers)
    shares: list[list[pytest.Item]] = [[] for _ in sizes]
    seconds = [0.0] * len(sizes)
    for unit_seconds, group in units(items, durations):
        open_shares = [s for s in range(len(sizes)) if len(shares[s]) + len(group) <= sizes[s]]
        chosen = min(open_shares or range(len(sizes)), key=lambda s: seconds[s])
        shares[chosen].extend(group)
        seconds[chosen] += unit_seconds
    return [item for share in shares for item in share]


def record_durations(reports: list[Path], path: Path = DURATIONS_FILE) -> int:
    """Write the seconds of every test in the JUnit `reports` that took longer than an unknown
    one counts (the longest where a test ran in several); return how many were written."""
    import xml.etree.ElementTree as ElementTree

    durations: dict[str, float] = {}
    for report in reports:
        for case in ElementTree.parse(report).iter("testcase"):
            key, seconds = f"{case.get('classname')}::{case.get('name')}", float(case.get("time") or 0)
            if seconds > UNKNOWN_SECONDS:
                durations[key] = max(durations.get(key, 0.0), round(seconds, 1))
    path.write_text(json.dumps(dict(sorted(durations.items())), indent=0) + "\n", encoding="utf-8")
    return len(durations)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every worker collects and must order the same way; the controller does not collect.
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 0 and items:
        items[:] = longest_first(items, workers, recorded_durations())
