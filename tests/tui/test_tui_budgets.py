"""The roster's `limit / budget` column and the queue's budget and limit entries: a budgeted
agent's bar is the one `wardian usage --pretty` draws, a held agent says so, a limited agent
shows its limit and its reset."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from in_process_agents import spawn, wait_until
from textual.pilot import Pilot
from tui_driving import driven, screen_text, until

from wardian_core import inbox
from wardian_core.db.budgets import store_hold
from wardian_core.db.connection import open_writer, transaction
from wardian_host.cli.budget_bars import bar, pretty_budget
from wardian_host.testing.in_process import InProcessHost
from wardian_host.tui import budgets
from wardian_host.tui.app import WardianApp
from wardian_host.tui.queue import URGENCY, QueueEntry, choice_command, merged
from wardian_host.tui.roster import limit_text, row_of

SLEEPER = ("sh", "-c", "echo ready; exec sleep 600")


def roster_line(shown: str, name: str) -> str:
    return next(line for line in shown.splitlines() if line.split()[:1] == [name])


def test_a_budgeted_agent_shows_its_bar_and_a_held_one_is_marked(
    running_host: InProcessHost, wardian_home: Path, tmp_path: Path
) -> None:
    (wardian_home / "settings.toml").write_text("[budgets]\ntokens = 20000\n")
    for name in ("spender", "stopped"):
        spawn(running_host, tmp_path, name, *SLEEPER)
        wait_until(running_host, name, "idle")
    held = running_host.host.registry.resolve("stopped")
    conn = open_writer(wardian_home)
    try:
        with transaction(conn):
            store_hold(conn, held.uuid, {"at": "2026-12-02T03:00:00Z", "reached": ["tokens"]})
    finally:
        conn.close()

    async def steps(pilot: Pilot[Any]) -> str:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await until(pilot, lambda: app.rows["stopped"].held, "the held agent's budget")
        await until(pilot, lambda: any(entry.kind == "budget" for entry in app.queue_entries), "the hold queued")
        return screen_text(app)

    shown = running_host.call(driven(WardianApp(), steps))
    drawn = bar(0, 20000, budgets.BAR_WIDTH)  # the same function draws `usage --pretty`'s bars
    assert "limit / budget" in shown
    assert f"tokens {drawn}" in roster_line(shown, "spender") and "held" not in roster_line(shown, "spender")
    assert f"held tokens {drawn}" in roster_line(shown, "stopped")
    assert "budget   stopped" in shown  # its queue entry, after the dialogs and before errors


def test_the_budget_cell_is_the_figure_nearest_its_limit_drawn_as_usage_pretty_draws_it() -> None:
    answer = {
        "agent": "a",
        "budget": {"tokens": 20000, "usd": 2.0, "minutes": None},
        "used": {"tokens": 5000, "usd": 1.5, "minutes": 3.0},
        "left": {"tokens": 15000, "usd": 0.5, "minutes": None},
        "held": None,
    }
    cell = budgets.budget_cell(answer)
    assert cell is not None and cell.text == "usd [########--]  75%" and not cell.held
    assert bar(1.5, 2.0) in pretty_budget(answer)  # one function draws both, at its own width
    assert budgets.budget_cell(answer | {"budget": {"tokens": None}}) is None
    held = budgets.budget_cell(answer | {"budget": {}, "held": {"at": "x"}})
    assert held is not None and held.text == "held" and held.held


def test_a_limited_agent_shows_its_limit_and_its_reset_in_local_time() -> None:
    resets = datetime(2026, 12, 2, 21, 57, tzinfo=UTC)
    local = resets.astimezone()
    limit = {"kind": "session", "state": "cut", "resets_at": "2026-12-02T21:57:00Z"}
    assert limit_text(limit, now=local) == f"session limit, resets {local:%H:%M}"
    assert limit_text(limit, now=datetime(2026, 11, 30).astimezone()) == f"session limit, resets {local:%m-%d %H:%M}"
    assert limit_text({"kind": "weekly", "resets_at": None}) == "weekly limit, reset unknown"
    retrying = {"kind": "rate", "state": "retrying", "retry_at": "2026-12-02T21:57:00Z"}
    assert limit_text(retrying, now=local) == f"rate limit, retrying {local:%H:%M}"
    row = row_of({"name": "a", "status": "idle", "limit": limit})
    assert row.allowance.startswith("session limit, resets")


def test_the_queue_sorts_budget_and_limit_entries_as_the_inbox_does() -> None:
    assert URGENCY == inbox.URGENCY
    kinds = ("unseen_turn", "error", "limit", "budget", "ask", "dialog")
    entries = [QueueEntry(kind=kind, agent="a", summary="") for kind in kinds]
    assert [entry.kind for entry in merged(entries)] == ["dialog", "ask", "limit", "budget", "error", "unseen_turn"]
    held = QueueEntry(kind="budget", agent="a", summary="", choices=[("raise", "wardian agent budget a --raise x")])
    assert choice_command(held, "accept") == "wardian agent budget a --raise x"
