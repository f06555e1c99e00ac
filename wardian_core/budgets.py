"""Budgets: what an agent may use (tokens, dollars, minutes), where each limit comes from, and
what is left (docs/limits.md#budgets).

An agent's budget is built from four layers, each key the nearest one sets: settings.toml's
`[budgets]` (the home), `[budgets.classes.CLASS]`, `[budgets.agents.NAME]`, then the agent's
own (spawn's `--budget`, `agent budget --raise`/`--clear`, kept in state.db). The agent's own
layer may set a figure to None: no limit, whatever settings.toml says.
"""

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wardian_core.budget_specs import parse_spec
from wardian_core.budget_steps import raise_step
from wardian_core.settings.model import BudgetsSettings

Dimension = Literal["tokens", "usd", "minutes"]
DIMENSIONS: tuple[Dimension, ...] = ("tokens", "usd", "minutes")
# Where a figure of the budget came from, nearest last.
Source = Literal["home", "class", "agent_settings", "agent", "none"]


class Budget(BaseModel):
    """The budget in force for one agent."""

    model_config = ConfigDict(extra="forbid")

    tokens: int | None = None
    usd: float | None = None
    minutes: float | None = None
    hard: bool = False
    count_cache_reads: bool = False
    sources: dict[str, Source] = {}

    def limit(self, dimension: Dimension) -> float | None:
        value: float | None = getattr(self, dimension)
        return value

    @property
    def is_set(self) -> bool:
        return any(self.limit(dimension) is not None for dimension in DIMENSIONS)


def effective_budget(settings: BudgetsSettings, class_name: str, name: str, own: dict[str, Any]) -> Budget:
    """The budget of agent `name` of class `class_name`, whose own layer is `own`."""
    layers: list[tuple[Source, dict[str, Any]]] = [("home", settings.model_dump(include=set(DIMENSIONS) | {"hard"}))]
    for source, table in (("class", settings.classes.get(class_name)), ("agent_settings", settings.agents.get(name))):
        if table is not None:
            layers.append((source, table.model_dump(exclude_none=True)))  # type: ignore[arg-type]
    layers.append(("agent", own))
    figures: dict[str, Any] = {"hard": False}
    sources: dict[str, Source] = {}
    for source, layer in layers:
        for key, value in layer.items():
            if key == "hard" and value is not None:
                figures["hard"] = value
            elif key in DIMENSIONS and (value is not None or source == "agent"):
                figures[key] = value
                sources[key] = source if value is not None else "none"
    return Budget(**figures, count_cache_reads=settings.count_cache_reads, sources=sources)


def reached(budget: Budget, used: Mapping[str, float | None]) -> list[Dimension]:
    """The figures whose use is at or past the budget."""
    hit: list[Dimension] = []
    for dimension in DIMENSIONS:
        limit, spent = budget.limit(dimension), used.get(dimension)
        if limit is not None and spent is not None and spent >= limit:
            hit.append(dimension)
    return hit


def left(budget: Budget, used: Mapping[str, float | None]) -> dict[str, float | None]:
    """What remains of each figure (never below 0); None where there is no limit."""
    remaining: dict[str, float | None] = {}
    for dimension in DIMENSIONS:
        limit = budget.limit(dimension)
        remaining[dimension] = None if limit is None else max(0, _rounded(limit - (used.get(dimension) or 0)))
    return remaining


def _rounded(value: float) -> float:
    return value if isinstance(value, int) else round(value, 6)


def raised_limits(budget: Budget, own: dict[str, Any], text: str) -> dict[str, Any]:
    """The agent's own layer after `agent budget --raise TEXT`: `+N` adds N to the budget in force
    (to what is used when that figure has no limit, which `--raise` makes a limit again: never
    lower than what is spent), `N` sets it."""
    raised = dict(own)
    for dimension, (added, value) in parse_spec(text, "--raise", relative=True).items():
        current = budget.limit(dimension)  # type: ignore[arg-type]
        raised[dimension] = _tidy(dimension, (current or 0) + value if added else value)
    return raised


def _tidy(dimension: str, value: float) -> float:
    return int(value) if dimension == "tokens" else round(value, 6)


def raise_hint(name: str, hit: list[str] | None = None) -> str:
    """How a person lifts an agent's hold: the command the refusal, the queue and the notice give."""
    step = raise_step(hit)
    return (
        f"Raise its budget with `wardian agent budget {name} --raise {step}` "
        f"(or lift it: `wardian agent budget {name} --clear`); it then takes prompts again."
    )
