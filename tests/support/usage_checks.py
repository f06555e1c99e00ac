"""Checking an agent's usage against what the model server reported, through `wardian` itself."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from model_server import ModelServer
from model_server.usage import REPORTED

FIGURES = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


def usage_after(show: Callable[[], dict[str, Any]], turns: int, timeout: float = 30) -> dict[str, Any]:
    """The agent's `usage` once `turns` turns are stored. A CLI writes its record a moment after
    the turn's end the host saw first (its hook, its event): no event tells when, so it is asked."""
    deadline = time.monotonic() + timeout
    while True:
        usage = show()
        if usage["turns"] >= turns or time.monotonic() > deadline:
            return usage
        time.sleep(0.2)


def model_calls(server: ModelServer, route_suffix: str) -> int:
    """The calls a fake model answered on routes ending with `route_suffix`."""
    return sum(1 for request in server.model_requests() if request.route.endswith(route_suffix))


def one_call(cache_write: int | None, reasoning: int | None = REPORTED.reasoning) -> dict[str, int | None]:
    """The figures Wardian shows for one model call of the server's: the input without the cache,
    the output and the cache reads as every wire gives them; `cache_write` and `reasoning` as the
    CLI's wire states them (0 where it states none, None where it has no such figure)."""
    return {
        "input_tokens": REPORTED.fresh_input,
        "output_tokens": REPORTED.output,
        "cache_read_tokens": REPORTED.cache_read,
        "cache_write_tokens": cache_write,
        "reasoning_tokens": reasoning,
    }


def times(calls: int, per_call: Mapping[str, int | None]) -> dict[str, int | None]:
    """The figures of `calls` calls, each reporting `per_call` (None stays None)."""
    return {name: None if value is None else value * calls for name, value in per_call.items()}


def figures(usage: dict[str, Any]) -> dict[str, Any]:
    return {name: usage[name] for name in FIGURES}
