"""Claude Code's usage limits: what it says when a plan's or key's limit cuts a turn, and how
the turn goes on once the limit reset.

Seen against Anthropic's answer at a limit (429 `rate_limit_error`, `anthropic-ratelimit-
unified-status: rejected`, `-reset`, `-representative-claim`), 2.1.197 and 2.1.332:

- Signed in with a plan (`CLAUDE_CODE_OAUTH_TOKEN`): the turn ends with a StopFailure hook,
  `error: "rate_limit"`, whose message is "You've hit your session limit · resets 5:23am (UTC)"
  (2.1.197; it then opens a menu, "1. Stop and wait for limit to reset / 2. Upgrade your plan",
  Esc cancels it) or "You've hit your 5-hour limit · resets 5:21am (UTC)" (2.1.332, whose
  transcript also keeps the exact reset, `quotaLimits.resetsAt`, and which continues by itself at
  the reset: "Usage limit reached · set to continue automatically at 5:21am", Esc cancels).
- With an API key, a reset up to about a minute ahead: Claude retries by itself, still in its
  turn, and only its screen says so ("Session limit reached · Retrying in 21s (3:24am) · attempt
  1/10", 2.1.197; "5-hour limit reached · retrying in 45s (3:26am) · attempt 1/10", 2.1.332).
  Further ahead: a StopFailure, "API Error: Request rejected (429) · <the API's message>", with
  no reset.
"""

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from wardian_claude.usage import parse_transcript
from wardian_core.provider import (
    LimitKind,
    LimitReport,
    LimitResume,
    OutputSource,
    ParseResult,
    ProviderEvent,
    SpawnContext,
    hookimpl,
)
from wardian_core.provider.parsing import SourceReader, epoch_time, json_object, limit_event, object_field, text_field

# The StopFailure hook's `error` and the transcript's `error` for a limit (2.1.197, 2.1.332).
RATE_LIMIT_ERROR = "rate_limit"
# What the transcript names an unplanned stop of 2.1.332's own: it continues by itself at the reset.
AUTO_CONTINUE = "set to continue automatically"
# Anthropic's names of a plan's windows (`rateLimitType`, the representative claim).
_CLAIM_KINDS: dict[str, LimitKind] = {"five_hour": "session", "seven_day": "weekly"}
# The limit's name in Claude's words, first match wins.
_TEXT_KINDS: tuple[tuple[re.Pattern[str], LimitKind], ...] = (
    (re.compile(r"session limit|5-hour limit", re.IGNORECASE), "session"),
    (re.compile(r"weekly limit|7-day limit|(?:Opus|Sonnet) limit", re.IGNORECASE), "weekly"),
    (re.compile(r"spend limit|usage credits", re.IGNORECASE), "usage"),
    (re.compile(r"Request rejected \(429\)|rate limit", re.IGNORECASE), "rate"),
)
# "resets 5:21am (UTC)", "resets Dec 5, 5pm (Europe/Paris)": a time of day in the zone it names.
_RESETS = re.compile(
    r"resets\s+(?:(?P<month>[A-Z][a-z]{2})\s+(?P<day>\d{1,2}),?\s+(?:at\s+)?)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s?(?P<half>[ap]m)\s*\((?P<zone>[^)]+)\)",
    re.IGNORECASE,
)
# "Retrying in 21s (3:24am) · attempt 1/10" (2.1.197), "retrying in 45s" (2.1.332).
RETRYING = re.compile(r"(?P<what>[\w -]*limit reached)\s*·\s*retrying in (?P<seconds>\d+)s", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def kind_in_text(text: str) -> LimitKind:
    return next((kind for pattern, kind in _TEXT_KINDS if pattern.search(text)), "other")


def reset_in_text(text: str, now: datetime) -> str | None:
    """The reset Claude shows as ISO 8601 UTC. Claude cuts the seconds ("resets 5:23am" for
    5:23:40): the end of that minute, the first moment the limit surely reset, and the next such
    moment from `now` on (a time of day alone is this minute's or later today, else tomorrow)."""
    found = _RESETS.search(text)
    if found is None:
        return None
    try:
        zone = ZoneInfo(found["zone"].strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None
    hour = int(found["hour"]) % 12 + (12 if found["half"].lower() == "pm" else 0)
    local_now = now.astimezone(zone)
    moment = local_now.replace(hour=hour, minute=int(found["minute"] or 0), second=0, microsecond=0)
    if found["month"] and found["month"].lower() in _MONTHS:
        moment = moment.replace(month=_MONTHS.index(found["month"].lower()) + 1, day=int(found["day"]))
        if moment < local_now - timedelta(days=1):
            moment = moment.replace(year=moment.year + 1)
    elif moment < local_now.replace(second=0, microsecond=0):
        moment += timedelta(days=1)
    return _iso(moment + timedelta(minutes=1))


def hook_limit(source: OutputSource, rule: str, record: dict[str, Any]) -> ParseResult | None:
    """A StopFailure hook whose turn a limit cut (None for another failure). A limit with a reset
    is told by the transcript alone, to the second where Claude knows it (2.1.332): told here
    too, its minute could reach the host after the second and replace it. One with no reset
    ("API Error: Request rejected (429)", an API key's) only the hook tells."""
    if text_field(record, "error") != RATE_LIMIT_ERROR:
        return None
    message = text_field(record, "last_assistant_message") or "usage limit reached"
    if _RESETS.search(message):
        return ParseResult()
    line = f"StopFailure {message}"
    reached = limit_event("limit_reached", source, rule, line, kind=kind_in_text(message), message=message[:500])
    return ParseResult(events=[reached])


def _now() -> datetime:
    return datetime.now(UTC)


class ClaudeTranscript(SourceReader):
    """The session's transcript: the limits it records, and each message's usage (usage.py).
    `last`: the limit the transcript told last, for 2.1.332's note that it continues by itself;
    `clock` tells a limit still ahead from one already reset. The parser is at rest whenever it
    holds no limit (`rests`), so a next host replays no more of a long transcript than the
    limit whose note may still come."""

    def __init__(
        self, source: OutputSource, ctx: SpawnContext | None = None, clock: Callable[[], datetime] = _now
    ) -> None:
        super().__init__(source, ctx)
        self.last: LimitReport | None = None
        self.clock = clock
        # Lines written from now on are this reader's own: a limit one tells ended the turn it
        # cut, even if its reset came before the line was read or written (a loaded machine, a
        # reset due seconds after the prompt). Older lines (a resumed session's transcript, read
        # from its start) tell only a limit still ahead.
        self.watching_since = clock()

    def feed(self, data: bytes) -> ParseResult:
        result = self.read(data)
        result.at_rest = self.rests()
        return result

    def forget_reset(self) -> None:
        """A limit already reset is history (`transcript_limit`): a new parser reading its line
        again would hold none, and 2.1.197, which writes no note, rests again."""
        if self.last is not None and self.last.resets_at is not None and self.last.resets_at <= _iso(self.clock()):
            self.last = None

    def rests(self) -> bool:
        """Whether a new parser reading on from here would hold what this one holds: no limit
        (`ParseResult.at_rest`)."""
        return self.last is None

    def read(self, data: bytes) -> ParseResult:
        record = json_object(data)
        reached = transcript_limit(self.source, record, self.clock(), self.watching_since) if record else None
        if reached is not None and reached.limit is not None:
            self.last = reached.limit
            return ParseResult(events=[reached])
        # 2.1.332's note comes right after its limit, which is kept for it even if already reset.
        continuing = auto_continue(self.source, record, self.last) if record and self.last else None
        if continuing is not None:
            self.last = None
            return ParseResult(events=[continuing])
        self.forget_reset()
        return parse_transcript(self.source, data) if record is not None else ParseResult()


def transcript_limit(
    source: OutputSource, record: dict[str, Any], now: datetime, watching_since: datetime
) -> ProviderEvent | None:
    """The message Claude makes up for a limit that resets: its `quotaLimits` give the reset to
    the second (2.1.332), its text to the minute (2.1.197), the next such moment after the line
    was written. A limit already reset is history (the transcript is read from its start on a
    resume): none; but a line written since `watching_since` cut a turn this reader watched, and
    is told whenever its reset falls: read late, or written as its reset came (a reset due
    seconds after the prompt: 2.1.332 then says it goes on "shortly")."""
    if record.get("type") != "assistant" or record.get("error") != RATE_LIMIT_ERROR:
        return None
    texts = [block.get("text") for block in object_field(record, "message").get("content") or []]
    message = " ".join(text for text in texts if isinstance(text, str))
    quota = object_field(record, "quotaLimits")
    written = _written_at(record) or now
    if quota.get("status") == "rejected" and epoch_time(quota.get("resetsAt")):
        claim = text_field(quota, "rateLimitType") or ""
        kind = _CLAIM_KINDS.get(claim) or ("weekly" if claim.startswith("seven_day") else "other")
        resets_at, rule, line = epoch_time(quota.get("resetsAt")), "transcript quotaLimits", f"quotaLimits={quota}"
    else:
        kind, resets_at = kind_in_text(message), reset_in_text(message, written)
        rule, line = "transcript limit message", message
    if resets_at is None or (written < watching_since and resets_at <= _iso(now)):
        return None
    return limit_event(
        "limit_reached", source, rule, line, kind=kind, resets_at=resets_at, message=message[:500] or None
    )


def _written_at(record: dict[str, Any]) -> datetime | None:
    stamp = text_field(record, "timestamp")
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None
    except ValueError:
        return None


def auto_continue(source: OutputSource, record: dict[str, Any], last: LimitReport) -> ProviderEvent | None:
    """2.1.332's note that it continues by itself at the reset: the same limit, with its retry."""
    content = text_field(record, "content") or ""
    if record.get("type") != "system" or AUTO_CONTINUE not in content:
        return None
    rule = "transcript auto-continue"
    return limit_event("limit_reached", source, rule, content, **(last.model_dump() | {"retry_at": last.resets_at}))


def retrying_on_screen(source: OutputSource, row: str, now: datetime) -> ProviderEvent | None:
    """Claude retrying by itself (API key, a reset within about a minute): only its screen says so."""
    found = RETRYING.search(row)
    if found is None:
        return None
    retry_at = _iso(now + timedelta(seconds=int(found["seconds"])))
    message = row.strip().lstrip("✻✶✳✢·*✽ ").strip()[:500]
    kind = kind_in_text(found["what"])
    return limit_event(
        "limit_retrying", source, "limit retrying", row.strip(), kind=kind, retry_at=retry_at, message=message
    )


@hookimpl(specname="limit_resume")
def limit_resume(limit: LimitReport) -> LimitResume:
    """Where Claude continues by itself (2.1.332 signed in; an API key's retry), wait for it: a key
    typed now would cancel it ("Esc to cancel"). Otherwise Esc leaves 2.1.197's menu without taking
    its "Upgrade your plan" (at an empty prompt it does nothing), then `continue`."""
    if limit.retry_at is not None:
        return LimitResume(how="wait", text=None)
    return LimitResume(how="text", keys=["escape"], text="continue")


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
