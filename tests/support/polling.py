"""A wait for a state no event tells (a thread's flag, a process gone from the table): polled,
with a bound only for a hang."""

import time
from collections.abc import Callable


def polled_until(seen: Callable[[], bool], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not seen():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.01)
