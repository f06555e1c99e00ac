"""Codex's usage limits: what it records when a plan's limit cuts a turn, and how the turn goes
on once the limit reset.

Seen against the ChatGPT backend's answer at a limit (429, error type `usage_limit_reached`
with `plan_type` and `resets_at`, the `x-codex-*` windows with the one that ran out at 100%),
0.171.0:

- The rollout writes a `token_count` whose `rate_limits` holds the windows the 429 carried (each
  `used_percent`, `window_minutes`, `resets_at` in epoch seconds), then ends the turn with
  `task_complete` whose `error` is `{"message": "You've hit your usage limit. Upgrade to Pro
  (…), visit … to purchase more credits or try again at 4:28 AM.", "codex_error_info":
  "usage_limit_exceeded"}` (a typographic apostrophe in "You've"; the time is Codex's local
  time, to the minute). No Stop hook fires: the hooks carry nothing of it.
- The screen shows the same message, then, once a session, a popup "Approaching rate limits /
  Switch to gpt-6-luna for lower credit usage? / › 1. Switch to gpt-6-luna / 2. Keep current
  model / 3. Keep current model (never show again) / enter select · esc back". It holds the
  keyboard: typed text is lost and Enter switches the model. Esc leaves it on the current model;
  with no popup open, one Esc in the empty composer only shows "esc again to edit previous
  message", and the text typed next is taken as a prompt.
- Codex does not retry by itself: the cut turn waits for a person.
"""

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from wardian_core.provider import LimitKind, LimitResume, OutputSource, ProviderEvent, hookimpl
from wardian_core.provider.parsing import epoch_time, limit_event, object_field, text_field

# `codex_error_info` of a turn a plan's limit cut (0.171.0).
USAGE_LIMIT_ERROR = "usage_limit_exceeded"
# The windows a `rate_limits` snapshot names.
WINDOWS = ("primary", "secondary")
# A window this long or shorter is a plan's session (Codex's 5-hour one); a week's is its weekly.
SESSION_WINDOW_MINUTES = 24 * 60
WEEKLY_WINDOW_MINUTES = 7 * 24 * 60
# "try again at 4:28 AM." (today, in Codex's local time) or "try again at Dec 3rd, 2026 4:28 AM.".
_TRY_AGAIN = re.compile(
    r"try again at (?:(?P<month>[A-Z][a-z]{2}) (?P<day>\d{1,2})(?:st|nd|rd|th), (?P<year>\d{4}) )?"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2}) (?P<half>[AP]M)",
    re.IGNORECASE,
)
# Esc leaves the switch-model popup on the current model; the text then goes to the composer.
RESUME = LimitResume(how="text", keys=["escape"], text="continue")


def is_usage_limit(error: Any) -> bool:
    """Whether a turn's `error` (or an `error` event) is Codex's usage limit."""
    if not isinstance(error, dict):
        return False
    info = error.get("codex_error_info")
    # A string in 0.171.0; an object keyed by the variant where the variant carries data.
    return info == USAGE_LIMIT_ERROR or (isinstance(info, dict) and USAGE_LIMIT_ERROR in info)


def limit_reached(
    source: OutputSource, rule: str, line: str, error: dict[str, Any], rate_limits: dict[str, Any], now: datetime
) -> ProviderEvent:
    """`limit_reached` of a cut turn: the window that ran out in the last `rate_limits` the
    rollout recorded (exact, to the second), else the time in Codex's message (to the minute)."""
    message = text_field(error, "message")
    exhausted = exhausted_window(rate_limits)
    if exhausted is not None:
        kind, resets_at = window_kind(exhausted), epoch_time(exhausted.get("resets_at"))
    else:
        kind, resets_at = "usage", None
    return limit_event(
        "limit_reached",
        source,
        rule,
        line,
        kind=kind,
        resets_at=resets_at or reset_in_message(message or "", now),
        message=message[:500] if message else None,
    )


def exhausted_window(rate_limits: dict[str, Any]) -> dict[str, Any] | None:
    """The window used up; of two, the one that resets last (the limit lasts until both did)."""
    used_up = [
        window
        for name in WINDOWS
        if (window := object_field(rate_limits, name))
        and isinstance(window.get("used_percent"), int | float)
        and window["used_percent"] >= 100
    ]
    return max(used_up, key=lambda window: window.get("resets_at") or 0, default=None)


def window_kind(window: dict[str, Any]) -> LimitKind:
    minutes = window.get("window_minutes")
    if not isinstance(minutes, int):
        return "usage"
    if minutes <= SESSION_WINDOW_MINUTES:
        return "session"
    return "weekly" if minutes <= WEEKLY_WINDOW_MINUTES else "usage"


def reset_in_message(message: str, now: datetime) -> str | None:
    """The time Codex's message gives, read in this machine's local time (Codex's own: it runs
    here, 0.171.0 formats it with its local zone) as ISO 8601 UTC; a time of day alone is the
    next such moment after `now`."""
    found = _TRY_AGAIN.search(message)
    if found is None:
        return None
    hour = int(found["hour"]) % 12 + (12 if found["half"].upper() == "PM" else 0)
    local_now = now.astimezone()
    moment = local_now.replace(hour=hour, minute=int(found["minute"]), second=0, microsecond=0)
    if found["month"]:
        try:
            day = datetime.strptime(f"{found['month']} {found['day']} {found['year']}", "%b %d %Y")
        except ValueError:
            return None
        moment = moment.replace(year=day.year, month=day.month, day=day.day)
    elif moment <= local_now:
        moment += timedelta(days=1)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@hookimpl(specname="limit_resume")
def limit_resume() -> LimitResume:
    """Esc first, so the switch-model popup Codex may have left open is closed on the current
    model rather than taking the text; then `continue` as a prompt (0.171.0)."""
    return RESUME
