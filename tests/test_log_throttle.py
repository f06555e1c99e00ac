"""A flood of connections logs a bounded number of lines (issue 30, item 12): per peer and in
all, per window, with one line saying how many were left out."""

import logging

import pytest

from wardian_host.daemon.log_throttle import LINES_OVERALL, LINES_PER_PEER, WINDOW_SECONDS, LogThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def throttle(clock: Clock) -> LogThrottle:
    return LogThrottle(logging.getLogger("throttled"), clock=clock)


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "throttled"]


def test_one_peer_repeating_itself_gets_a_few_lines(throttle: LogThrottle, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    logged = [throttle.log(logging.WARNING, "bad frame", 42, "pid %s sent a bad frame", 42) for _ in range(1000)]
    assert logged.count(True) == LINES_PER_PEER and logged[:LINES_PER_PEER] == [True] * LINES_PER_PEER
    assert _lines(caplog) == ["pid 42 sent a bad frame"] * LINES_PER_PEER
    # Another peer, and another kind of line from the same peer, have budgets of their own.
    assert throttle.log(logging.WARNING, "bad frame", 43, "pid %s sent a bad frame", 43)
    assert throttle.log(logging.WARNING, "other user", 42, "refused pid %s", 42)


def test_thirty_thousand_peers_log_at_most_the_overall_budget_then_say_how_many_were_left_out(
    throttle: LogThrottle, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for pid in range(30_000):
        throttle.log(logging.WARNING, "bad frame", pid, "pid %s sent a bad frame", pid)
    assert len(_lines(caplog)) == LINES_OVERALL
    clock.now += WINDOW_SECONDS
    assert throttle.log(logging.WARNING, "bad frame", 7, "pid %s sent a bad frame", 7)
    left_out = 30_000 - LINES_OVERALL
    assert _lines(caplog)[LINES_OVERALL:] == [
        f"left out {left_out} more 'bad frame' lines from {left_out} peers in {WINDOW_SECONDS:.0f} s",
        "pid 7 sent a bad frame",
    ]


def test_a_quiet_window_turns_without_a_summary(
    throttle: LogThrottle, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    throttle.log(logging.INFO, "peer left", 0, "dropped one")
    clock.now += WINDOW_SECONDS
    throttle.log(logging.INFO, "peer left", 0, "dropped another")
    assert _lines(caplog) == ["dropped one", "dropped another"]
