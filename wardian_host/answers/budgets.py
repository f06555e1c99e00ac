"""What `wardian agent budget NAME` answers: the budget in force, what is used and left, the hold.

Shown from the host when one runs; without one, from state.db and settings.toml (the hold the
last host stored). Raising or clearing needs the host, which lifts the hold and tells the queue.
"""

from typing import Any

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_host.answers.connection import request


def budget_answer(target: str, raise_by: str | None = None, clear: bool = False) -> dict[str, Any]:
    if raise_by is not None and clear:
        raise WardianError(
            "usage", "--raise and --clear together", "Give one: --raise tokens=+N, or --clear for no budget."
        )
    if raise_by is not None:
        from wardian_core.budget_specs import parse_spec

        parse_spec(raise_by, "--raise", relative=True)  # refused here, before any host is asked
    changing = raise_by is not None or clear
    answer: dict[str, Any]
    try:
        answer = request("agent.budget", {"target": target, "raise_by": raise_by, "clear": clear})
    except WardianError as error:
        if error.code != "app_not_running" or changing:
            raise
        answer = stored_budget(target)
    return {"schema": SCHEMA_VERSION} | answer


def stored_budget(target: str) -> dict[str, Any]:
    """The answer from state.db and settings.toml, as the last host left them."""
    from wardian_core.db.budgets import agent_budget
    from wardian_core.db.connection import reading
    from wardian_core.roster import show_agent
    from wardian_core.settings import load_settings

    home = paths.wardian_home()
    agent = show_agent(home, target)
    with reading(home) as conn:
        return agent_budget(conn, load_settings(home).budgets, agent)
