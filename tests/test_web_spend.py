"""The web view's spend chart (`GET /api/spend`): the fleet's tokens and dollars per hour over the
last day, summed from state.db's usage table as budgets count tokens (cache reads left out)."""

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wardian_core.db import open_writer
from wardian_core.db.usage import add_usage
from wardian_host.web.spend import HOURS, read_spend

NOW = datetime(2026, 12, 2, 14, 40, tzinfo=UTC)
EVIDENCE = {"source": "test", "rule": "seeded"}


def turn(key: str, **figures: Any) -> dict[str, Any]:
    return {"turn_key": key, **figures}


def test_each_hour_of_the_last_day_sums_every_agents_turns_and_splits_them_by_agent(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    coder, reviewer = seed_agent("Coder", name="coder"), seed_agent("Reviewer", name="reviewer")
    conn = open_writer(wardian_home)
    # Two turns of the coder and one of the reviewer in the current hour (14:00 UTC).
    add_usage(conn, coder["uuid"], turn("c1", input_tokens=1000, output_tokens=200, cost_usd=0.25), EVIDENCE,
              "2026-12-02T14:05:00.000Z")  # fmt: skip
    add_usage(conn, coder["uuid"], turn("c2", input_tokens=500, cache_write_tokens=100, cache_read_tokens=90000,
              output_tokens=50, cost_usd=0.5), EVIDENCE, "2026-12-02T14:39:59.999Z")  # fmt: skip
    add_usage(conn, reviewer["uuid"], turn("r1", input_tokens=300, output_tokens=30), EVIDENCE,
              "2026-12-02T14:10:00.000Z")  # fmt: skip
    # The oldest hour shown (15:00 yesterday), and one just before it, which is left out.
    add_usage(conn, reviewer["uuid"], turn("r2", output_tokens=7), EVIDENCE, "2026-12-01T15:00:00.000Z")
    add_usage(conn, reviewer["uuid"], turn("r3", output_tokens=1000), EVIDENCE, "2026-12-01T14:59:59.999Z")
    conn.close()

    spend = read_spend(wardian_home, NOW)

    assert len(spend.hours) == HOURS
    assert (spend.since, spend.hours[0].hour, spend.hours[-1].hour) == (
        "2026-12-01T15:00:00.000Z",
        "2026-12-01T15:00:00.000Z",
        "2026-12-02T14:00:00.000Z",
    )
    now = spend.hours[-1]
    # coder: 1000 + 200, then 500 + 100 (cache write) + 50, the 90000 cache reads not counted.
    assert (now.turns, now.tokens, now.usd) == (3, 1850 + 330, 0.75)
    assert [(share.agent, share.turns, share.tokens, share.usd) for share in now.agents] == [
        ("coder", 2, 1850, 0.75),
        ("reviewer", 1, 330, None),
    ]
    oldest = spend.hours[0]
    assert (oldest.turns, oldest.tokens, oldest.usd) == (1, 7, None)  # no turn of it stated a cost
    quiet = spend.hours[5]
    assert (quiet.turns, quiet.tokens, quiet.usd, quiet.agents) == (0, 0, None, [])
    assert (spend.turns, spend.tokens, spend.usd) == (4, 2187, 0.75)


def test_a_day_without_turns_is_every_hour_at_zero_with_its_cost_unknown(wardian_home: Path) -> None:
    open_writer(wardian_home).close()

    spend = read_spend(wardian_home, NOW)

    assert [hour.tokens for hour in spend.hours] == [0] * HOURS
    assert (spend.turns, spend.tokens, spend.usd) == (0, 0, None)
