"""The roster's budget column: each local agent's use against its budget, as `wardian agent
budget` answers it, drawn with the bar `wardian usage --pretty` draws (`cli.budget_bars.bar`).

Read after the roster is on screen, never on the start-up path: the settings it needs cost more
than the whole roster read."""

from typing import Any

from wardian_host.cli.budget_bars import FIGURES, bar
from wardian_host.tui.roster import LOCAL_MACHINE, BudgetCell, RosterRow

# Narrower than `usage --pretty`'s 20: the column sits beside the status in 80 columns.
BAR_WIDTH = 10


def budget_cell(answer: dict[str, Any]) -> BudgetCell | None:
    """The figure nearest its limit as a bar, `held` first while the budget holds the agent;
    None for an agent with no budget (it gets no empty bar)."""
    figures = [
        (figure, answer["used"].get(figure) or 0, limit)
        for figure in FIGURES
        if (limit := answer["budget"].get(figure)) is not None
    ]
    held = answer.get("held") is not None
    if not figures and not held:
        return None
    words = ["held"] if held else []
    if figures:
        figure, used, limit = max(figures, key=lambda each: each[1] / each[2] if each[2] else 1.0)
        words.append(f"{figure} {bar(used, limit, BAR_WIDTH)}")
    return BudgetCell(" ".join(words), held)


def budget_cells(rows: list[RosterRow]) -> dict[str, BudgetCell]:
    """Each budgeted (or held) local agent's cell, by uuid."""
    local = [row for row in rows if row.machine == LOCAL_MACHINE and row.uuid and row.created_at]
    if not local:
        return {}
    from wardian_core import paths
    from wardian_core.db.budgets import agent_budget
    from wardian_core.db.connection import reading
    from wardian_core.settings import load_settings

    home = paths.wardian_home()
    settings = load_settings(home).budgets
    cells: dict[str, BudgetCell] = {}
    with reading(home) as conn:
        for row in local:
            agent = {"uuid": row.uuid, "name": row.name, "class": row.class_name, "created_at": row.created_at}
            cell = budget_cell(agent_budget(conn, settings, agent))
            if cell is not None:
                cells[row.uuid] = cell
    return cells
