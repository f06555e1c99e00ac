"""Budgets: layers, use, what is left, the --budget and --raise texts, the stored hold."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from wardian_core.budget_specs import spawn_limits
from wardian_core.budgets import effective_budget, left, raised_limits, reached
from wardian_core.db import budgets as budget_rows
from wardian_core.db import open_writer
from wardian_core.db.agents import insert_agent
from wardian_core.db.usage import add_usage
from wardian_core.errors import WardianError
from wardian_core.settings.model import BudgetsSettings


def _settings(**tables: object) -> BudgetsSettings:
    return BudgetsSettings.model_validate(tables)


def test_the_nearest_layer_sets_each_figure_and_says_where_it_came_from() -> None:
    settings = _settings(
        tokens=1000, usd=5.0, classes={"Coder": {"tokens": 2000, "hard": True}}, agents={"c1": {"minutes": 30}}
    )
    budget = effective_budget(settings, "Coder", "c1", {"usd": 1.5})
    assert (budget.tokens, budget.usd, budget.minutes, budget.hard) == (2000, 1.5, 30, True)
    assert budget.sources == {"tokens": "class", "usd": "agent", "minutes": "agent_settings"}
    other = effective_budget(settings, "Reviewer", "r1", {})
    assert (other.tokens, other.usd, other.minutes, other.hard) == (1000, 5.0, None, False)


def test_an_agents_own_none_lifts_what_settings_set() -> None:
    budget = effective_budget(_settings(tokens=1000), "Coder", "c1", {"tokens": None})
    assert budget.tokens is None and not budget.is_set and budget.sources == {"tokens": "none"}


def test_reached_and_left_per_figure() -> None:
    budget = effective_budget(_settings(tokens=1000, usd=2.0), "C", "a", {})
    used = {"tokens": 1200, "usd": 0.5, "minutes": 3.0}
    assert reached(budget, used) == ["tokens"]
    assert left(budget, used) == {"tokens": 0, "usd": 1.5, "minutes": None}
    assert reached(budget, {"tokens": 999, "usd": None, "minutes": 1}) == []


def test_spawn_budget_text_and_its_refusals() -> None:
    assert spawn_limits("tokens=5000, usd=2.5,minutes=90") == {"tokens": 5000, "usd": 2.5, "minutes": 90.0}
    assert spawn_limits("tokens=20_000") == {"tokens": 20000}
    for text, code in (
        ("", "usage"),
        ("tokens", "usage"),
        ("dollars=3", "usage"),
        ("tokens=+5", "usage"),
        ("tokens=5,tokens=6", "usage"),
        ("tokens=1.5", "validation_failed"),
        ("usd=0", "validation_failed"),
        ("minutes=99999999999", "validation_failed"),
    ):
        with pytest.raises(WardianError) as raised:
            spawn_limits(text)
        assert raised.value.code == code, text
        assert raised.value.hint and "--budget" in raised.value.hint


def test_raise_adds_to_the_budget_in_force_or_sets_it() -> None:
    budget = effective_budget(_settings(tokens=1000, usd=1.0), "C", "a", {})
    assert raised_limits(budget, {}, "tokens=+500,usd=3") == {"tokens": 1500, "usd": 3.0}


@pytest.fixture
def conn(tmp_path: Path):  # type: ignore[no-untyped-def]
    connection = open_writer(tmp_path)
    insert_agent(
        connection,
        agent_uuid="u1",
        name="a1",
        class_name="Coder",
        provider="generic",
        workspace=None,
        description=None,
    )
    yield connection
    connection.close()


def test_use_counts_input_cache_writes_and_output_cache_reads_when_asked(conn) -> None:  # type: ignore[no-untyped-def]
    for key, figures in (("t1", (100, 50, 1000, 10)), ("t2", (200, 25, 3000, None))):
        names = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
        report = dict(zip(names, figures, strict=True))
        add_usage(conn, "u1", {"turn_key": key, "cost_usd": 0.25, **report}, {})
    created = conn.execute("SELECT created_at FROM agents WHERE uuid = 'u1'").fetchone()[0]
    later = datetime.fromisoformat(created.replace("Z", "+00:00")).astimezone(UTC).replace(microsecond=0)
    spent = budget_rows.used(conn, "u1", created, count_cache_reads=False)
    assert (spent["tokens"], spent["usd"]) == (385, 0.5)
    assert budget_rows.used(conn, "u1", created, count_cache_reads=True)["tokens"] == 4385
    assert budget_rows.minutes_since("2026-01-01T00:00:00Z", datetime(2026, 1, 1, 1, 30, tzinfo=UTC)) == 90.0
    assert budget_rows.used(conn, "u1", created, False, later)["minutes"] >= 0


def test_a_hold_is_stored_listed_and_lifted_with_its_events(conn) -> None:  # type: ignore[no-untyped-def]
    budget_rows.store_limits(conn, "u1", {"tokens": 10})
    budget_rows.store_hold(conn, "u1", {"at": "2026-01-01T00:00:00Z", "reached": ["tokens"]})
    assert budget_rows.own_limits(conn, "u1") == {"tokens": 10}
    assert budget_rows.held_agents(conn) == [
        {"uuid": "u1", "name": "a1", "held": {"at": "2026-01-01T00:00:00Z", "reached": ["tokens"]}}
    ]
    budget_rows.store_hold(conn, "u1", None)
    assert budget_rows.hold_of(conn, "u1") is None and budget_rows.held_agents(conn) == []
    kinds = [row[0] for row in conn.execute("SELECT kind FROM events WHERE agent = 'u1' ORDER BY id")]
    assert kinds[-2:] == ["budget_reached", "budget_lifted"]
