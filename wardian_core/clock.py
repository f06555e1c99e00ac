"""Timestamps as stored in state.db: UTC ISO 8601 with milliseconds.

One fixed-width format, so timestamps compare correctly as strings in SQL.
"""

from datetime import UTC, datetime, timedelta


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    return format_timestamp(datetime.now(UTC))


def iso_days_ago(days: float) -> str:
    return format_timestamp(datetime.now(UTC) - timedelta(days=days))
