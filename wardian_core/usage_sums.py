"""Adding up usage figures outside SQL (a workflow run's node runs), the way state.db's sums do:
a figure no part reported stays None ("unknown"), never 0."""

from collections.abc import Iterable
from typing import Any

TOKEN_FIGURES = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
SUMMED_FIGURES = (*TOKEN_FIGURES, "cost_usd")


def add_up(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """`turns` (each part's own, else 1) and the sum of each figure over `parts`."""
    totals: dict[str, Any] = {"turns": 0, **dict.fromkeys(SUMMED_FIGURES)}
    for part in parts:
        totals["turns"] += part.get("turns", 1)
        for name in SUMMED_FIGURES:
            if part.get(name) is not None:
                totals[name] = (totals[name] or 0) + part[name]
    return totals


def reported_turns(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals of the `usage_reported` events among a run's events (dumped ProviderEvents),
    each turn once, with its newest figures."""
    turns = {event["usage"]["turn_key"]: event["usage"] for event in events if event.get("usage")}
    return add_up(turns.values())
