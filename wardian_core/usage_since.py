"""`wardian usage --since`: a day, a moment, or a span back from now, as state.db's timestamps."""

import re
from datetime import UTC, datetime, timedelta

from wardian_core.clock import format_timestamp
from wardian_core.errors import WardianError

_SPAN = re.compile(r"^\s*(\d+)\s*(m|h|d)\s*$")
_SPAN_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}


def since_timestamp(text: str, now: datetime | None = None) -> str:
    """`text` (`2026-11-25`, `2026-11-25T08:00:00Z`, `24h`, `7d`, `30m`) as a state.db timestamp."""
    span = _SPAN.match(text)
    if span:
        moment = (now or datetime.now(UTC)) - int(span.group(1)) * _SPAN_UNITS[span.group(2)]
        return format_timestamp(moment)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise WardianError(
            "usage",
            f"invalid --since {text!r}",
            "Give a day (2026-11-25, UTC), a moment (2026-11-25T08:00:00Z), or a span back from now (30m, 24h, 7d).",
            {"since": text},
        ) from None
    # A day or a moment without a zone is UTC, the zone state.db keeps.
    return format_timestamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
