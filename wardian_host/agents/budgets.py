"""Budgets while the host runs: holding an agent whose use reached its budget, refusing it
prompts, and lifting the hold when a person raises or clears the budget (docs/limits.md#budgets).

Nothing is kept in memory: the hold and the agent's own budget are state.db's `budgets` row, the
use its `usage` table, and settings.toml is read at each check (as `notify.*`), so a hold
outlives a host restart and a crash, and an edit of `[budgets]` applies to the next check.
A soft budget lets the turn that reaches it finish (its later news is still recorded); a hard
one types the provider's interrupt key at once.
"""

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.budgets import Budget, effective_budget, raise_hint, raised_limits
from wardian_core.clock import now_iso
from wardian_core.db import budgets as budget_rows
from wardian_core.errors import WardianError
from wardian_core.settings import load_settings
from wardian_core.settings.model import BudgetLimits, BudgetsSettings
from wardian_host.agents.live_agent import LiveAgent

log = logging.getLogger(__name__)

# Told of each hold and lift: (agent, the hold, or None once lifted).
HoldListener = Callable[[LiveAgent, dict[str, Any] | None], None]
# Types a provider's interrupt key into an agent's terminal; False when it declares none.
Interrupt = Callable[[LiveAgent], bool]


class BudgetKeeper:
    def __init__(self, home: Path, conn: sqlite3.Connection, interrupt: Interrupt) -> None:
        self._home = home
        self._conn = conn
        self._interrupt = interrupt
        self._last_good = BudgetsSettings()
        self.listeners: list[HoldListener] = []

    def settings(self) -> BudgetsSettings:
        """`[budgets]` now; a file that no longer validates leaves the last good values in force."""
        try:
            self._last_good = load_settings(self._home).budgets
        except WardianError as error:
            log.warning("budget settings kept as they were: %s", error.message)
        return self._last_good

    def budget_of(self, agent: LiveAgent) -> Budget:
        own = budget_rows.own_limits(self._conn, agent.uuid)
        return effective_budget(self.settings(), agent.row["class"], agent.name, own)

    def report(self, agent: LiveAgent) -> dict[str, Any]:
        """`wardian agent budget NAME`'s answer."""
        return budget_rows.agent_budget(self._conn, self.settings(), dict(agent.row))

    def check(self, agent: LiveAgent) -> dict[str, Any] | None:
        """Hold the agent if its use reached its budget (once); its hold, if any."""
        held = budget_rows.hold_of(self._conn, agent.uuid)
        if held is not None:
            return held
        answer = self.report(agent)
        if not answer["reached"]:
            return None
        held = {key: answer[key] for key in ("budget", "used", "reached")} | {"at": now_iso()}
        budget_rows.store_hold(self._conn, agent.uuid, held)
        agent.log_event("budget_reached", held)
        log.info("agent %s: budget reached (%s): held", agent.name, ", ".join(answer["reached"]))
        if answer["budget"]["hard"] and agent.status == "processing" and not self._interrupt(agent):
            log.warning("agent %s: its provider declares no interrupt key: the turn is let finish", agent.name)
        self._tell(agent, held)
        return held

    def usage_recorded(self, agent: LiveAgent) -> None:
        """A turn's figures were stored: a budget they reach holds the agent now, before its next
        prompt (a hard one interrupts the turn)."""
        self.check(agent)

    def refusal(self, agent: LiveAgent) -> WardianError | None:
        """Why no prompt may reach `agent` now (a dialog's answer is no prompt), or None."""
        held = self.check(agent)
        if held is None:
            return None
        return WardianError(
            "budget_reached",
            f"agent {agent.name} reached its budget ({_spent(held)}) and takes no prompts",
            raise_hint(agent.name, held.get("reached")),
            {"agent": agent.name, "budget": held.get("budget"), "used": held.get("used"), "reached": held["reached"]},
        )

    def change(self, agent: LiveAgent, raise_by: str | None, clear: bool) -> dict[str, Any]:
        """`agent budget NAME --raise …` or `--clear`: the agent's own layer changed, and the hold
        lifted once nothing is reached; the answer as `agent budget` shows it."""
        own = budget_rows.own_limits(self._conn, agent.uuid)
        if clear:
            own = dict.fromkeys(("tokens", "usd", "minutes"))
        elif raise_by is not None:
            own = raised_limits(self.budget_of(agent), own, raise_by)
        budget_rows.store_limits(self._conn, agent.uuid, own)
        answer = self.report(agent)
        if answer["held"] is not None and not answer["reached"]:
            budget_rows.store_hold(self._conn, agent.uuid, None)
            agent.log_event("budget_lifted", {"budget": answer["budget"]})
            log.info("agent %s: budget raised: takes prompts again", agent.name)
            self._tell(agent, None)
            answer = self.report(agent)
        return answer

    def set_own(self, agent_uuid: str, limits: BudgetLimits) -> None:
        """Spawn's `--budget`: the agent's own layer."""
        budget_rows.store_limits(self._conn, agent_uuid, limits.model_dump(exclude_none=True))

    def _tell(self, agent: LiveAgent, held: dict[str, Any] | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(agent, held)
            except Exception:  # one failing listener must not keep the others from hearing
                log.warning("a budget listener failed", exc_info=True)


def _spent(held: dict[str, Any]) -> str:
    used, budget = held.get("used") or {}, held.get("budget") or {}
    return ", ".join(f"{used.get(key)} of {budget.get(key)} {key}" for key in held.get("reached", []))
