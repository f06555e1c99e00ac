"""The text of a budget as a person writes it (`agent spawn --budget`, `agent budget --raise`):
`tokens=20000,usd=2.5,minutes=90`, each figure checked. Its own module, with no models: the
lifecycle commands (`agent spawn`, `wait`, `kill`, ...) read it without loading the settings'
models that `wardian_core.budgets` needs, which would triple their start-up."""

import math
import re
from typing import Any

from wardian_core.errors import WardianError

_ITEM = re.compile(r"^\s*(tokens|usd|minutes)\s*=\s*(\+?)\s*([0-9][0-9_]*(?:\.[0-9]+)?)\s*$")
_LIMITS = {"tokens": 10**15, "usd": 10**9, "minutes": 10**7}


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
