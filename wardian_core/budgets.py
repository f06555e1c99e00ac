"""Budgets: what an agent may use (tokens, dollars, minutes), where each limit comes from, and
what is left (docs/limits.md#budgets).

An agent's budget is built from four layers, each key the nearest one sets: settings.toml's
`[budgets]` (the home), `[budgets.classes.CLASS]`, `[budgets.agents.NAME]`, then the agent's
own (spawn's `--budget`, `agent budget --raise`/`--clear`, kept in state.db). The agent's own
layer may set a figure to None: no limit, whatever settings.toml says.
"""

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wardian_core.budget_steps import raise_step
from wardian_core.errors import WardianError
from wardian_core.settings.model import BudgetsSettings

Dimension = Literal["tokens", "usd", "minutes"]
DIMENSIONS: tuple[Dimension, ...] = ("tokens", "usd", "minutes")
# Where a figure of the budget came from, nearest last.
Source = Literal["home", "class", "agent_settings", "agent", "none"]
_ITEM = re.compile(r"^\s*(tokens|usd|minutes)\s*=\s*(\+?)\s*([0-9][0-9_]*(?:\.[0-9]+)?)\s*$")
_LIMITS = {"tokens": 10**15, "usd": 10**9, "minutes": 10**7}


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


def parse_spec(text: str, option: str, relative: bool = False) -> dict[str, tuple[bool, float]]:
    """`tokens=5000,usd=2.5,minutes=90` as {figure: (added, value)}; `added` where `+N` was given,
    which only `relative` specs (`--raise`) take."""
    items = [item for item in text.split(",") if item.strip()]
    if not items:
        raise _bad_spec(text, option, "it names no figure")
    spec: dict[str, tuple[bool, float]] = {}
    for item in items:
        match = _ITEM.match(item)
        if match is None:
            raise _bad_spec(text, option, f"{item.strip()!r} is not FIGURE=NUMBER (tokens, usd or minutes)")
        dimension, plus, number = match.groups()
        if plus and not relative:
            raise _bad_spec(text, option, f"{option} takes a budget, not an increase: drop the +")
        if dimension in spec:
            raise _bad_spec(text, option, f"{dimension} is given twice")
        spec[dimension] = (bool(plus), _number(text, option, dimension, number.replace("_", "")))
    return spec


def _number(text: str, option: str, dimension: str, number: str) -> float:
    value: float = float(number)
    if dimension == "tokens":
        if not value.is_integer():
            raise _bad_value(text, option, f"tokens must be a whole number, not {number}")
        value = int(value)
    if not math.isfinite(value) or value <= 0 or value > _LIMITS[dimension]:
        raise _bad_value(text, option, f"{dimension} must be above 0 and at most {_LIMITS[dimension]:g}")
    return value


def spawn_limits(text: str) -> dict[str, Any]:
    """`agent spawn --budget`'s text as the agent's own layer."""
    return {dimension: value for dimension, (_, value) in parse_spec(text, "--budget").items()}


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


def _bad_spec(text: str, option: str, reason: str) -> WardianError:
    return WardianError(
        "usage",
        f"invalid {option} {text!r}: {reason}",
        f"Write {option} {'tokens=+5000,usd=+1' if option == '--raise' else 'tokens=20000,usd=2.5,minutes=90'} "
        "(any of tokens, usd, minutes, comma-separated).",
        {"option": option, "value": text},
    )


def _bad_value(text: str, option: str, reason: str) -> WardianError:
    return WardianError(
        "validation_failed",
        f"invalid {option} {text!r}: {reason}",
        f"Give each figure as a number above 0, e.g. {option} tokens=20000,usd=2.5,minutes=90.",
        {"option": option, "value": text},
    )


def raise_hint(name: str, hit: list[str] | None = None) -> str:
    """How a person lifts an agent's hold: the command the refusal, the queue and the notice give."""
    step = raise_step(hit)
    return (
        f"Raise its budget with `wardian agent budget {name} --raise {step}` "
        f"(or lift it: `wardian agent budget {name} --clear`); it then takes prompts again."
    )
