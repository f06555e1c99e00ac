"""The web view's page state carries each agent's usage and context fill, as `agent show` gives it."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.db import open_writer
from wardian_core.db.usage import add_usage, empty_summary
from wardian_host.web.state import page_state


def test_each_agent_on_the_page_carries_its_usage_and_context_fill(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    busy, quiet = seed_agent("Coder", name="busy"), seed_agent("Coder", name="quiet")
    conn = open_writer(wardian_home)
    turn = {"turn_key": "m1", "input_tokens": 1200, "context_used": 50000, "context_window": 200000}
    add_usage(conn, busy["uuid"], turn, {"source": "test", "rule": "seeded"})

    state = page_state(lambda: [{"uuid": busy["uuid"], "name": "busy"}, {"uuid": quiet["uuid"], "name": "quiet"}], conn)

    by_name = {agent["name"]: agent["usage"] for agent in state["agents"]}
    assert (by_name["busy"]["input_tokens"], by_name["busy"]["context"]["fill"]) == (1200, 0.25)
    assert by_name["quiet"] == empty_summary()
