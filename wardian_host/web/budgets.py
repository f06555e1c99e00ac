"""Each agent's use against its budget, as a tile draws it: a bar per budgeted figure, the hold,
and the raise a person's tap makes (docs/limits.md#budgets). None for an agent with no budget,
so the page draws no bar for it, rather than an empty one."""

import sqlite3
from typing import Any

from wardian_core.budget_steps import raise_step
from wardian_core.budgets import DIMENSIONS
from wardian_core.db.budgets import agent_budget
from wardian_core.settings.model import BudgetsSettings


def page_budget(conn: sqlite3.Connection, settings: BudgetsSettings, agent: dict[str, Any]) -> dict[str, Any] | None:
    """`agent`: its snapshot (uuid, name, class, created_at). `figures`: one per figure with a
    limit, in `wardian agent budget`'s order; `held`: when and what ran out, while held."""
    answer = agent_budget(conn, settings, agent)
    figures = [
        {
            "figure": figure,
            "used": answer["used"][figure],
            "limit": answer["budget"][figure],
            "left": answer["left"][figure],
            "reached": figure in answer["reached"],
        }
        for figure in DIMENSIONS
        if answer["budget"][figure] is not None
    ]
    held = answer["held"]
    if not figures and held is None:
        return None
    step = raise_step(held.get("reached") if held else answer["reached"])
    return {
        "figures": figures,
        "hard": answer["budget"]["hard"],
        "held": None if held is None else {"at": held.get("at"), "reached": held.get("reached", [])},
        "raise_by": step,
        "command": f"wardian agent budget {agent['name']} --raise {step}",
    }
