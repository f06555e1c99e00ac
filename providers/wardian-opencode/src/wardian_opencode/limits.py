"""OpenCode's usage limits: it retries by itself, and says so on its event stream (1.18.33).

Seen against an OpenAI-compatible provider answering as OpenAI does at a key's limit (429
`rate_limit_exceeded`, `retry-after`, `x-ratelimit-{limit,remaining,reset}-<type>`, a message
"… Please try again in 9m51s."):

- OpenCode waits what the answer's `retry-after-ms` or `retry-after` says, however far ahead (a
  day, if it says a day), then calls again, five times at most. Before each wait its session's
  status is `retry`: `{"type": "retry", "attempt": 1, "message": <the API's message>, "next":
  <epoch ms>}`, and its screen "⬝ Rate limit reached … [retrying in 9m attempt #1]". The call after
  the reset goes through and the turn goes on: `limit_retrying`, the status unchanged.
- After the fifth retry (a `retry-after` shorter than the limit's reset) it gives up: the turn
  ends with `session.error`, an `APIError` of `statusCode` 429 carrying the answer's headers
  and body, and the message shown in the transcript. Until this reader, Wardian marked that
  agent `error`; it is `limit_reached` (idle), reset from the headers. A new prompt
  ("continue") continues the session: OpenCode opens no dialog and offers nothing.

OpenCode retries on overloaded servers and broken connections the same way: a retry whose
message names no limit is not one.
"""

import email.utils
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from wardian_core.provider import LimitKind, LimitReport, LimitResume, OutputSource, ProviderEvent, hookimpl
from wardian_core.provider.parsing import epoch_milliseconds, limit_event, object_field, text_field

Clock = Callable[[], datetime]
# The status code of an answer at a limit, whatever the vendor.
TOO_MANY_REQUESTS = 429
# What a limit is called in the API's message (OpenAI's, OpenCode's own Go plan's), first match wins.
_TEXT_KINDS: tuple[tuple[re.Pattern[str], LimitKind], ...] = (
    (re.compile(r"quota|usage limit|billing|insufficient_quota", re.IGNORECASE), "usage"),
    (re.compile(r"rate[ _-]?limit|too many requests|too_many_requests", re.IGNORECASE), "rate"),
)
# OpenAI's durations: `9m51s`, `1h2m3.5s`, `120ms`; "Please try again in 20s." in its messages.
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|h|m|s))+")
_TRY_AGAIN = re.compile(r"try again in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)", re.IGNORECASE)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def now() -> datetime:
    return datetime.now(UTC)


def kind_in_text(text: str) -> LimitKind | None:
    """The limit the API's message names; None when it names none (an overloaded server)."""
    for pattern, kind in _TEXT_KINDS:
        if pattern.search(text):
            return kind
    return None


def retrying(source: OutputSource, status: dict[str, Any], line: str, clock: Clock) -> ProviderEvent | None:
    """`session.status` `retry` at a limit: the next attempt (`next`), and the reset where the
    API's message says it ("try again in 9m51s", from when OpenCode tells it)."""
    message = text_field(status, "message") or ""
    kind = kind_in_text(message)
    if kind is None:
        return None
    retry_at = epoch_milliseconds(status.get("next"))
    found = _TRY_AGAIN.search(message)
    resets_at = _iso(clock() + duration(found.group(1))) if found else None
    rule = f"session.status retry attempt {status.get('attempt')}"
    report = {"kind": kind, "retry_at": retry_at, "resets_at": resets_at, "message": message[:500] or None}
    return limit_event("limit_retrying", source, rule, line, **report)


def gave_up(source: OutputSource, error: dict[str, Any], line: str, clock: Clock) -> ProviderEvent | None:
    """An `APIError` of status 429 (`session.error`, after OpenCode's retries): the limit that cut
    the turn, its reset from the answer's headers (`api_reset`)."""
    data = object_field(error, "data")
    if text_field(error, "name") != "APIError" or data.get("statusCode") != TOO_MANY_REQUESTS:
        return None
    message = text_field(data, "message") or ""
    kind = kind_in_text(f"{message} {text_field(data, 'responseBody') or ''}") or "rate"
    resets_at = api_reset(object_field(data, "responseHeaders"), message, clock)
    report = {"kind": kind, "resets_at": resets_at, "message": message[:500] or None}
    return limit_event("limit_reached", source, "session.error 429", line, **report)


def api_reset(headers: dict[str, Any], message: str, clock: Clock) -> str | None:
    """When the limit resets, from when the answer was sent (`date`): the latest reset of a window
    with nothing left (`x-ratelimit-reset-<type>` where `x-ratelimit-remaining-<type>` is 0), else
    `retry-after-ms` / `retry-after`, else the message's "try again in"."""
    sent = _http_date(headers.get("date")) or clock()
    resets = [
        sent + duration(value)
        for name, value in headers.items()
        if name.startswith("x-ratelimit-reset-")
        and str(headers.get(name.replace("-reset-", "-remaining-"))) == "0"
        and isinstance(value, str)
        and _DURATION.fullmatch(value)
    ]
    if resets:
        return _iso(max(resets))
    waited = _retry_after(headers, sent)
    if waited is not None:
        return _iso(waited)
    found = _TRY_AGAIN.search(message)
    return _iso(sent + duration(found.group(1))) if found else None


def duration(text: str) -> timedelta:
    """An OpenAI duration (`9m51s`, `1h2m3.5s`, `120ms`) as a timedelta."""
    seconds = sum(float(amount) * _UNIT_SECONDS[unit] for amount, unit in _DURATION_PART.findall(text))
    return timedelta(seconds=seconds)


def _retry_after(headers: dict[str, Any], sent: datetime) -> datetime | None:
    """`retry-after-ms`, or `retry-after` in seconds or as an HTTP date, as OpenCode reads them."""
    milliseconds = _number(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return sent + timedelta(milliseconds=milliseconds)
    seconds = _number(headers.get("retry-after"))
    if seconds is not None:
        return sent + timedelta(seconds=seconds)
    return _http_date(headers.get("retry-after"))


def _number(value: Any) -> float | None:
    try:
        return float(value) if isinstance(value, str | int | float) else None
    except ValueError:
        return None


def _http_date(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return email.utils.parsedate_to_datetime(value).astimezone(UTC)
    except (TypeError, ValueError):
        return None


def _iso(moment: datetime) -> str:
    """To the second, rounded up: never before the moment the API named."""
    whole = datetime.fromtimestamp(math.ceil(moment.timestamp()), UTC)
    return whole.strftime("%Y-%m-%dT%H:%M:%SZ")


@hookimpl(specname="limit_resume")
def limit_resume(limit: LimitReport) -> LimitResume:
    """A turn OpenCode gave up on (its retries spent) continues with a new prompt: it opened no
    dialog and offers nothing to take the keys, so none are typed (Esc at its prompt would do
    nothing; during a turn it interrupts). While it retries by itself, the host waits for it."""
    if limit.retry_at is not None:
        return LimitResume(how="wait", text=None)
    return LimitResume(how="text", keys=[], text="continue")
