"""The web view's page state carries each budgeted agent's use against its budget, one figure per
limit, its hold and the raise a tap makes; an agent with no budget carries None (no bar)."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.db import open_writer
from wardian_core.db.budgets import store_hold, store_limits
from wardian_core.db.usage import add_usage
from wardian_core.settings.model import BudgetsSettings
from wardian_host.web.state import page_state

EVIDENCE = {"source": "test", "rule": "seeded"}


def test_a_budgeted_agent_carries_a_figure_per_limit_and_an_unbudgeted_one_none(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    spender, free = seed_agent("Coder", name="spender"), seed_agent("Coder", name="free")
    conn = open_writer(wardian_home)
    store_limits(conn, spender["uuid"], {"tokens": 1000, "usd": 2.0})
    add_usage(conn, spender["uuid"], {"turn_key": "t1", "input_tokens": 300, "output_tokens": 100}, EVIDENCE)

    state = page_state(lambda: [spender, free], conn, BudgetsSettings)

    shown = {agent["name"]: agent["budget"] for agent in state["agents"]}
    assert shown["free"] is None
    budget = shown["spender"]
    assert [(f["figure"], f["used"], f["limit"], f["left"], f["reached"]) for f in budget["figures"]] == [
        ("tokens", 400, 1000, 600, False),
        ("usd", None, 2.0, 2.0, False),  # no turn stated a cost
    ]
    assert budget["held"] is None


def test_a_held_agent_carries_its_hold_and_the_raise_for_what_ran_out(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    held = seed_agent("Coder", name="held")
    conn = open_writer(wardian_home)
    add_usage(conn, held["uuid"], {"turn_key": "t1", "input_tokens": 900, "output_tokens": 300}, EVIDENCE)
    store_hold(conn, held["uuid"], {"at": "2026-12-02T14:00:00.000Z", "reached": ["tokens"]})

    # The home's budget, from settings.toml's [budgets].
    state = page_state(lambda: [held], conn, lambda: BudgetsSettings(tokens=1000))

    budget = state["agents"][0]["budget"]
    assert [(f["figure"], f["used"], f["limit"], f["reached"]) for f in budget["figures"]] == [
        ("tokens", 1200, 1000, True)
    ]
    assert budget["held"] == {"at": "2026-12-02T14:00:00.000Z", "reached": ["tokens"]}
    assert budget["raise_by"] == "tokens=+20000"
    assert budget["command"] == "wardian agent budget held --raise tokens=+20000"
