"""Reading the usage figures a CLI records: counts that may be missing, and the events carrying
them and the limits it hits.

A figure the record leaves out, or gives as something other than a non-negative number, is
None ("unknown"): never 0 in its place (`wardian_core.provider_models.UsageReport`).
"""

from datetime import UTC, datetime
from typing import Any, Literal

from wardian_core.parsing.events import event
from wardian_core.provider_models import LimitReport, OutputSource, ProviderEvent, UsageReport


def count(record: dict[str, Any], key: str) -> int | None:
    """`record[key]` as a token count, None when absent or not a non-negative whole number."""
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
        return None
    return int(value)


def amount(record: dict[str, Any], key: str) -> float | None:
    """`record[key]` as a non-negative amount (a cost), None when absent."""
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def less(total: int | None, *parts: int | None) -> int | None:
    """`total` without `parts` (a CLI's input count that includes its cache reads); None when
    any is unknown or the parts exceed the total, which would mean the record is not read right."""
    if total is None or any(part is None for part in parts):
        return None
    rest = total - sum(part for part in parts if part is not None)
    return rest if rest >= 0 else None


def plus(*parts: int | None) -> int | None:
    """The sum of `parts`; None when any is unknown."""
    if any(part is None for part in parts):
        return None
    return sum(part for part in parts if part is not None)


def epoch_time(seconds: Any) -> str | None:
    """A Unix time in seconds as ISO 8601 UTC, None when it is not a number."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_time(text: Any) -> str | None:
    """An ISO 8601 time a CLI wrote (`2026-11-25T22:09:31.085Z`), None when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def epoch_milliseconds(value: Any) -> str | None:
    """A Unix time in milliseconds (OpenCode's) as ISO 8601 UTC, None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = epoch_time(value / 1000)
    return None if seconds is None else seconds.replace("Z", f".{int(value) % 1000:03d}Z")


def limit_event(
    event_kind: Literal["limit_reached", "limit_retrying"], source: OutputSource, rule: str, line: str, **report: Any
) -> ProviderEvent:
    """`event_kind` from `rule` on `line`; `report`: LimitReport's fields (its `kind` at least)."""
    return event(event_kind, source, rule, line, limit=LimitReport(**report))


def usage_event(source: OutputSource, rule: str, line: str, **report: Any) -> ProviderEvent:
    """`usage_reported` from `rule` on `line`; `report`: UsageReport's fields (a turn_key at least)."""
    return event("usage_reported", source, rule, line, usage=UsageReport(**report))
