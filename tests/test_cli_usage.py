"""`wardian usage` and `agent show/list --fields usage`: the stored turns' figures as a user reads them."""

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wardian_core.clock import iso_days_ago
from wardian_core.db import open_writer
from wardian_core.db.usage import add_usage
from wardian_core.models import AgentUsage
from wardian_core.usage_since import since_timestamp

EVIDENCE = {"source": "test", "rule": "seeded"}
LIMITS = [{"name": "primary", "used_percent": 40.0, "window_minutes": 300, "resets_at": "2026-11-26T03:00:00Z"}]


def _seed(wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]) -> dict[str, dict[str, Any]]:
    agents = {
        "ada": seed_agent("Coder", name="ada", provider="generic"),
        "bob": seed_agent("Reviewer", name="bob", provider="generic"),
    }
    conn = open_writer(wardian_home)
    ada, bob = agents["ada"]["uuid"], agents["bob"]["uuid"]
    figures = {"input_tokens": 1200, "output_tokens": 70, "cache_read_tokens": 300, "cost_usd": 0.25}
    add_usage(conn, ada, {"turn_key": "m1", **figures}, EVIDENCE, iso_days_ago(3))
    recent = {"turn_key": "m2", "model": "claude-x", "context_used": 1500, "context_window": 200000}
    add_usage(conn, ada, recent | figures | {"rate_limits": LIMITS}, EVIDENCE)
    add_usage(conn, bob, {"turn_key": "t1", "input_tokens": 5, "output_tokens": 2}, EVIDENCE)
    conn.close()
    return agents


def test_usage_totals_per_agent_class_provider_and_day(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    report = run_wardian("usage").json()["usage"]
    assert report["total"] == {
        "turns": 3,
        "input_tokens": 2405,
        "output_tokens": 142,
        "cache_read_tokens": 600,
        "cache_write_tokens": None,  # no turn reported one: unknown, not 0
        "reasoning_tokens": None,
        "cost_usd": 0.5,
    }
    assert [(row["agent"], row["turns"], row["cost_usd"]) for row in report["by_agent"]] == [
        ("ada", 2, 0.5),
        ("bob", 1, None),
    ]
    assert [(row["class"], row["input_tokens"]) for row in report["by_class"]] == [("Coder", 2400), ("Reviewer", 5)]
    assert [(row["provider"], row["turns"]) for row in report["by_provider"]] == [("generic", 3)]
    assert len(report["by_day"]) == 2 and sum(row["turns"] for row in report["by_day"]) == 3

    recent = run_wardian("usage", "--since", "24h", "--by", "agent").json()["usage"]
    assert set(recent) == {"since", "total", "by_agent", "budgets"}
    assert [(row["agent"], row["turns"]) for row in recent["by_agent"]] == [("ada", 1), ("bob", 1)]


def test_usage_pretty_shows_unknown_figures_as_a_dash(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    table = run_wardian("usage", "--pretty", "--by", "class").stdout
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()}
    assert rows["Reviewer"] == ["Reviewer", "1", "5", "2", "-", "-", "-", "-"]
    assert rows["Coder"][-1] == "0.5"


def test_a_bad_since_is_a_usage_error(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    result = run_wardian("usage", "--since", "last tuesday")
    assert result.returncode == 1
    error = result.error()
    assert (error["code"], error["details"]) == ("usage", {"since": "last tuesday"})
    assert "24h" in error["hint"]


def test_since_reads_days_moments_and_spans_as_utc() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert since_timestamp("2026-11-20") == "2026-11-20T00:00:00.000Z"
    assert since_timestamp("2026-11-20T08:30:00+01:00") == "2026-11-20T07:30:00.000Z"
    assert since_timestamp("7d", now) == "2026-11-18T12:00:00.000Z"
    assert since_timestamp("90m", now) == "2026-11-25T10:30:00.000Z"


def test_agent_show_and_list_give_usage_when_asked(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    shown = run_wardian("agent", "show", "ada", "--fields", "name,usage").json()["agent"]
    usage = AgentUsage.model_validate(shown["usage"])
    assert (usage.turns, usage.input_tokens, usage.cost_usd, usage.model) == (2, 2400, 0.5, "claude-x")
    assert (usage.context.used, usage.context.window, usage.context.fill) == (1500, 200000, 0.0075)
    assert usage.rate_limits == LIMITS
    listed = run_wardian("agent", "list", "--fields", "name,usage").json()["agents"]
    assert [(agent["name"], agent["usage"]["turns"], agent["usage"]["cost_usd"]) for agent in listed] == [
        ("ada", 2, 0.5),
        ("bob", 1, None),
    ]
    assert "usage" not in run_wardian("agent", "show", "ada").json()["agent"]  # only when asked


def test_usage_shows_each_budget_beside_its_use_and_bars_with_pretty(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    (wardian_home / "settings.toml").write_text("[budgets.classes.Coder]\ntokens = 5080\nusd = 2.0\n")
    budgets = run_wardian("usage").json()["usage"]["budgets"]
    assert [
        (row["agent"], row["used"]["tokens"], row["budget"]["tokens"], row["left"]["tokens"]) for row in budgets
    ] == [
        ("ada", 2540, 5080, 2540)  # bob's class has no budget: not listed
    ]
    assert budgets[0]["sources"] == {"tokens": "class", "usd": "class"} and budgets[0]["reached"] == []

    pretty = run_wardian("usage", "--pretty").stdout
    assert "ada  takes prompts" in pretty
    assert "tokens   [##########----------]  50%  2540 of 5080, 2540 left" in pretty
    assert "usd      [#####---------------]  25%  0.5 of 2, 1.5 left" in pretty

    shown = run_wardian("agent", "budget", "ada").json()  # no host: read from state.db
    assert (shown["agent"], shown["left"]["usd"], shown["held"]) == ("ada", 1.5, None)
    assert run_wardian("agent", "budget", "ada", "--pretty").stdout.startswith("ada  takes prompts\n  tokens")


def test_agent_budget_refuses_a_bad_raise_before_asking_any_host(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]], run_wardian: Callable[..., Any]
) -> None:
    _seed(wardian_home, seed_agent)
    for args, code in (
        (("--raise", "tokens=lots"), "usage"),
        (("--raise", "tokens=+0"), "validation_failed"),
        (("--raise", "tokens=+5", "--clear"), "usage"),
    ):
        result = run_wardian("agent", "budget", "ada", *args)
        assert result.returncode == 1
        assert result.error()["code"] == code and result.error()["hint"], args
    # A valid raise needs the host that holds the agent.
    assert run_wardian("agent", "budget", "ada", "--raise", "tokens=+5").error()["code"] == "app_not_running"
