"""Durations as people type them: `500ms`, `30s`, `10m`, `1h`, or bare seconds."""

import re

from wardian_core.errors import WardianError

_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_SECONDS_PER_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}

# Longer than any wait makes sense, and far below what a socket timeout or a clock
# can hold (beyond ~292 years they overflow: a traceback after the text was typed).
MAX_DURATION_SECONDS = 30 * 24 * 3600.0


def parse_duration(text: str) -> float:
    match = _PATTERN.match(text)
    if not match:
        raise WardianError(
            "usage",
            f"invalid duration {text!r}",
            "Use a number of seconds or a number with a unit: 500ms, 30s, 10m, 1h.",
            {"duration": text},
        )
    seconds = float(match.group(1)) * _SECONDS_PER_UNIT[match.group(2)]
    if seconds == 0:
        raise WardianError(
            "usage",
            f"duration {text!r} is zero: a limit of no time would end before anything happened",
            "Give a duration longer than 0 (500ms, 30s); to wait without a limit, leave the option out "
            "where the command allows it.",
            {"duration": text},
        )
    if seconds > MAX_DURATION_SECONDS:
        raise WardianError(
            "usage",
            f"duration {text!r} is longer than the limit of {MAX_DURATION_SECONDS / 86400:g} days",
            "Give at most 720h; to wait without a limit, leave the option out where the command allows it.",
            {"duration": text, "max_seconds": MAX_DURATION_SECONDS},
        )
    return seconds
