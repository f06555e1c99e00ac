"""What Codex records of a model call's cost: its token counts (`TokenUsage`, in the rollout's
`token_count` events and `exec --json`'s `turn.completed`) and its rate-limit windows.

Codex's `input_tokens` includes the cached input (read and written, 0.169.0) and its
`output_tokens` the reasoning: Wardian's `input_tokens` is what is left of the input.
Codex states no cost.
"""

from typing import Any

from wardian_core.provider import RateLimitWindow
from wardian_core.provider.parsing import count, epoch_time, less, object_field

RATE_LIMIT_WINDOWS = ("primary", "secondary")


def token_figures(usage: dict[str, Any]) -> dict[str, int | None]:
    """A `TokenUsage` object as UsageReport's token fields."""
    cache_read, cache_write = count(usage, "cached_input_tokens"), count(usage, "cache_write_input_tokens")
    return {
        "input_tokens": less(count(usage, "input_tokens"), cache_read, cache_write or 0),
        "output_tokens": count(usage, "output_tokens"),
        "cache_read_tokens": cache_read,
        "cache_write_tokens": cache_write,
        "reasoning_tokens": count(usage, "reasoning_output_tokens"),
    }


def rate_limit_windows(rate_limits: dict[str, Any]) -> list[RateLimitWindow]:
    """The windows a `token_count` event's `rate_limits` reports (null ones are left out)."""
    windows = []
    for name in RATE_LIMIT_WINDOWS:
        window = object_field(rate_limits, name)
        if not window:
            continue
        used = window.get("used_percent")
        windows.append(
            RateLimitWindow(
                name=name,
                used_percent=float(used) if isinstance(used, int | float) and not isinstance(used, bool) else None,
                window_minutes=count(window, "window_minutes"),
                resets_at=epoch_time(window.get("resets_at")),
            )
        )
    return windows
