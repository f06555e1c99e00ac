"""Gemini CLI retrying a request by itself (0.61.0), read from its debug log.

A 429 that is no terminal quota (`classifyGoogleError`: no Code Assist `QUOTA_EXHAUSTED`, no
`PerDay` quota, a `RetryInfo` delay of 5 minutes or less) is retried after that delay, up to
`maxAttempts`, still in the turn. The screen tells nothing of a first retry at the default
`ui.errorVerbosity` ("low"; from the third attempt on, "This is taking a bit longer, we're still
on it."), no hook fires and the session's log records nothing. Only its debug log, written where
`GEMINI_DEBUG_LOG_FILE` names (Wardian sets it), tells each retry, with the delay it waits:

    [2026-12-02T07:40:01.123Z] [WARN] Attempt 1 failed: You exceeded your current quota, …
    Suggested retry after 3s.. Retrying after 5123ms...

A 429 with no delay is retried with backoff, and logged with no delay:

    [2026-12-02T07:40:01.123Z] [WARN] Attempt 1 failed with status 429. Retrying with backoff...
"""

import re
from datetime import datetime, timedelta

from wardian_core.provider import LimitReport, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import SourceReader, limit_event

DEBUG_LOG_SOURCE = "gemini-debug-log"
_STAMP = re.compile(r"^\[(?P<at>\d{4}-\d\d-\d\dT[\d:.]+Z)\] \[(?P<level>[A-Z]+)\] (?P<said>.*)$")
_ATTEMPT = re.compile(r"^Attempt \d+ failed")
_AFTER = re.compile(r"Retrying after (?P<ms>\d+)ms\.\.\.$")
_BACKOFF = re.compile(r"failed with (?:status )?429\b.*Retrying with backoff")
# The most lines one entry's message is followed over (Google's message, "Suggested retry after 3s.").
MAX_ENTRY_LINES = 20


class RetryLog(SourceReader):
    """Each retry entry is one `limit_retrying`: the log is appended to, never redrawn, so an entry
    is told once (a host that resumes the file replays old lines without reporting them). An
    entry's message may span lines (Gemini adds "Suggested retry after 3s." on its own line): the
    entry is held from its stamped line to the one that ends it."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.entry: list[str] = []  # the "Attempt N failed" entry read so far
        self.logged_at: datetime | None = None

    def feed(self, data: bytes) -> ParseResult:
        line = data.decode("utf-8", "replace").rstrip("\r\n")
        stamped = _STAMP.match(line)
        if stamped is not None:
            self.entry, self.logged_at = [], None
            if stamped["level"] == "WARN" and _ATTEMPT.match(stamped["said"]):
                self.entry = [stamped["said"]]
                self.logged_at = datetime.fromisoformat(stamped["at"].replace("Z", "+00:00"))
        elif self.entry and len(self.entry) < MAX_ENTRY_LINES:
            self.entry.append(line)
        else:
            self.entry, self.logged_at = [], None
        events = self._retrying(line)
        return ParseResult(events=events, at_rest=not self.entry)

    def _retrying(self, line: str) -> list[ProviderEvent]:
        if not self.entry or self.logged_at is None:
            return []
        said = " ".join(part.strip() for part in self.entry if part.strip())
        after = _AFTER.search(said)
        if after is None and _BACKOFF.search(said) is None:
            return []  # the entry goes on, or it is a 5xx's or the last attempt's
        retry_at = None if after is None else _iso(self.logged_at + timedelta(milliseconds=int(after["ms"])))
        self.entry, self.logged_at = [], None
        rule = "debug log retry"
        return [
            limit_event(
                "limit_retrying", self.source, rule, line[:500], kind="rate", retry_at=retry_at, message=said[:500]
            )
        ]


def own_retry(limit: LimitReport) -> bool:
    """A limit Gemini retries by itself (told by its debug log, whose entry the message keeps):
    a key typed now would reach the prompt of a turn still running."""
    return limit.retry_at is not None or (limit.message or "").startswith("Attempt ")


def _iso(moment: datetime) -> str:
    """To the second, rounded up: the retry has surely gone out by then."""
    whole = moment.replace(microsecond=0)
    return (whole + timedelta(seconds=1 if moment > whole else 0)).strftime("%Y-%m-%dT%H:%M:%SZ")
