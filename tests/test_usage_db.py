"""state.db's usage table: a turn counted once, unknown figures kept unknown, totals and pruning."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.clock import iso_days_ago
from wardian_core.db import open_writer
from wardian_core.db import usage as usage_rows
from wardian_core.db.connection import transaction
from wardian_core.db.events import KEEP_PER_AGENT

EVIDENCE = {"source": "test", "rule": "seeded"}


def _turn(key: str, **figures: Any) -> dict[str, Any]:
    return {"turn_key": key, **figures}


def test_a_turn_stored_twice_counts_once(wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]) -> None:
    agent = seed_agent("Coder", name="ada")
    conn = open_writer(wardian_home)
    assert usage_rows.add_usage(conn, agent["uuid"], _turn("msg_1", input_tokens=10, output_tokens=5), EVIDENCE)
    assert not usage_rows.add_usage(conn, agent["uuid"], _turn("msg_1", input_tokens=10, output_tokens=5), EVIDENCE)
    summary = usage_rows.agent_summaries(conn, [agent["uuid"]])[agent["uuid"]]
    assert (summary["turns"], summary["input_tokens"], summary["output_tokens"]) == (1, 10, 5)


def test_a_turn_written_again_with_newer_figures_keeps_them_as_one_turn(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    agent = seed_agent("Coder", name="ada")
    conn = open_writer(wardian_home)
    usage_rows.add_usage(conn, agent["uuid"], _turn("msg_1", input_tokens=10, output_tokens=1), EVIDENCE)
    assert usage_rows.add_usage(conn, agent["uuid"], _turn("msg_1", input_tokens=10, output_tokens=5), EVIDENCE)
    assert [(row["turn_key"], row["output_tokens"]) for row in usage_rows.list_usage(conn, agent["uuid"])] == [
        ("msg_1", 5)
    ]


def test_figures_no_turn_reported_stay_unknown(wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]) -> None:
    agent, quiet = seed_agent("Coder", name="ada"), seed_agent("Coder", name="bob")
    conn = open_writer(wardian_home)
    usage_rows.add_usage(conn, agent["uuid"], _turn("a", input_tokens=3, cost_usd=None), EVIDENCE)
    usage_rows.add_usage(conn, agent["uuid"], _turn("b", input_tokens=4, cache_read_tokens=0), EVIDENCE)
    summaries = usage_rows.agent_summaries(conn, [agent["uuid"], quiet["uuid"]])
    assert summaries[agent["uuid"]]["input_tokens"] == 7
    assert summaries[agent["uuid"]]["cache_read_tokens"] == 0  # reported as 0: known
    assert summaries[agent["uuid"]]["cost_usd"] is None  # never reported: unknown, not 0
    assert summaries[agent["uuid"]]["output_tokens"] is None
    assert summaries[quiet["uuid"]] == usage_rows.empty_summary()


def test_the_latest_turn_gives_context_fill_and_rate_limits(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    agent = seed_agent("Coder", name="ada")
    conn = open_writer(wardian_home)
    limits = [{"name": "primary", "used_percent": 12.5, "window_minutes": 300, "resets_at": "2026-01-01T00:00:00Z"}]
    usage_rows.add_usage(conn, agent["uuid"], _turn("1", context_used=100, rate_limits=limits), EVIDENCE)
    usage_rows.add_usage(conn, agent["uuid"], _turn("2", model="m", context_used=250, context_window=1000), EVIDENCE)
    summary = usage_rows.agent_summaries(conn, [agent["uuid"]])[agent["uuid"]]
    assert summary["model"] == "m"
    assert summary["context"] == {"used": 250, "window": 1000, "fill": 0.25}
    assert summary["rate_limits"] == limits  # the newest turn that reported any


def test_totals_group_by_class_provider_and_day(wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]) -> None:
    ada = seed_agent("Coder", name="ada", provider="generic")
    bob = seed_agent("Coder", name="bob", provider="generic")
    cyd = seed_agent("Reviewer", name="cyd", provider="generic")
    conn = open_writer(wardian_home)
    usage_rows.add_usage(
        conn, ada["uuid"], _turn("1", input_tokens=1, cost_usd=0.5), EVIDENCE, "2026-01-01T10:00:00.000Z"
    )
    usage_rows.add_usage(conn, bob["uuid"], _turn("1", input_tokens=2), EVIDENCE, "2026-01-02T10:00:00.000Z")
    usage_rows.add_usage(conn, cyd["uuid"], _turn("1", input_tokens=4), EVIDENCE, "2026-01-02T11:00:00.000Z")
    by_class = {row["class"]: row for row in usage_rows.totals(conn, "class")}
    assert (by_class["Coder"]["input_tokens"], by_class["Coder"]["cost_usd"], by_class["Coder"]["turns"]) == (3, 0.5, 2)
    assert by_class["Reviewer"]["cost_usd"] is None
    by_day = {row["day"]: row["input_tokens"] for row in usage_rows.totals(conn, "day")}
    assert by_day == {"2026-01-01": 1, "2026-01-02": 6}
    recent = usage_rows.totals(conn, "agent", since="2026-01-02T10:30:00.000Z")
    assert [(row["agent"], row["input_tokens"]) for row in recent] == [("cyd", 4)]


def test_pruned_by_age_like_events_but_never_by_count(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    agent = seed_agent("Coder", name="ada")
    conn = open_writer(wardian_home)
    usage_rows.add_usage(conn, agent["uuid"], _turn("old", input_tokens=1), EVIDENCE, iso_days_ago(40))
    # More turns than events keep per agent: a busy agent's day.
    keys = [f"m{index}" for index in range(KEEP_PER_AGENT + 1)]
    with transaction(conn):
        for key in keys:
            usage_rows.add_usage(conn, agent["uuid"], _turn(key, input_tokens=1), EVIDENCE)
    assert usage_rows.prune_usage(conn) == 1
    # A turn its CLI's record still holds stays: read again after a restart, it counts once.
    assert [row["turn_key"] for row in usage_rows.list_usage(conn, agent["uuid"])] == keys
