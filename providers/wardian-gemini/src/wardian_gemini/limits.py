"""Gemini CLI's usage limits: the dialog it opens when a quota cuts a turn, and how the turn goes
on once the quota reset (0.61.0).

Seen against Google's answer at a quota (429 `RESOURCE_EXHAUSTED`; Code Assist's `ErrorInfo`
`QUOTA_EXHAUSTED` with a `RetryInfo`, which 0.61.0 calls a terminal quota error):

- The turn stops behind a dialog, with no hook (BeforeAgent fired, no AfterAgent) and nothing in
  the session's files; only the screen tells, and the reset only to the minute, in Gemini's local
  zone ("Access resets at 3:55 AM UTC": now plus the answer's `retryDelay`, formatted by
  `Intl.DateTimeFormat("en-US")`, whose ICU may put U+202F before the AM/PM):

      Usage limit reached for gemini-3.8-flash.     (a Pro model: "for all Pro models.")
      Access resets at 3:55 AM UTC.                 (only when the answer gave a delay)
      /stats model for usage details
      /model to switch models.

      ● 1. Keep trying                              (another model to fall back to:
        2. Stop                                      "1. Switch to <model>", signed in with
                                                     Google also "Upgrade for higher limits")

- Enter takes the preselected answer: it retries at once, or switches the model. "Stop" is the
  last answer, its number typed alone picks it at once (fewer than ten answers); the list takes
  only arrows, Enter and digits. Stop ends the turn (AfterAgent fires) and prints "[API Error:
  …]"; the session's file records that error only then.
- Gemini does not retry by itself: the dialog waits for a person.
- A request that failed is rolled out of the conversation with its prompt (unless it carried a
  tool's result): after Stop, the model no longer has the cut prompt.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path

from wardian_core.provider import LimitReport, LimitResume, OutputSource, ProviderEvent, SpawnContext, hookimpl
from wardian_core.provider.parsing import hook_payload, limit_event, squeeze, text_field
from wardian_gemini import home, retries

USAGE_LIMIT = "Usage limit reached for"
# The stream's squeezed text that asks for a look at the screen.
MARKERS = (squeeze(USAGE_LIMIT),)
# "Access resets at 3:55 AM UTC." (en-US; "GMT+2", "PST" elsewhere; U+202F or a space before AM).
_RESETS = re.compile(
    r"Access resets at (?P<hour>\d{1,2}):(?P<minute>\d{2})[\s\u202f]*(?P<half>[AP]M)\s*"
    r"(?P<zone>[A-Z]{1,5}(?:[+-]\d{1,2}(?::\d{2})?)?)?",
    re.IGNORECASE,
)
# "GMT+5:30", "UTC-3": a fixed offset Intl writes where the zone has no short name.
_OFFSET = re.compile(r"(?:GMT|UTC)(?P<sign>[+-])(?P<hours>\d{1,2})(?::(?P<minutes>\d{2}))?$")
# An answer of the dialog's list: "● 1. Keep trying", "2. Stop".
_CHOICE = re.compile(r"^(?:● )?(?P<number>\d)\. (?P<label>\S.*)$")
# "2. Stop", "3. Stop" (after "Upgrade for higher limits"), as the message keeps the answers.
_STOP_ANSWER = re.compile(r"(?P<number>\d)\. Stop\b")
# Where the screen gave no Stop to read: the last of two answers (an API key's dialog, 0.61.0).
DEFAULT_STOP = "2"
# The longest text a resume types (`LimitResume.text`); a longer cut prompt gets `continue`.
MAX_RESENT_PROMPT = 2000


@dataclass
class LimitDialog:
    """The dialog on screen: reported once; a look without it lets the next one be reported again."""

    shown: bool = False

    def look(self, source: OutputSource, lines: list[str], now: datetime | None = None) -> list[ProviderEvent]:
        """`limit_reached` once when the dialog is drawn; `lines`: the screen's rows, box borders off."""
        dialog = _dialog(lines)
        if dialog is None:
            self.shown = False
            return []
        if self.shown:
            return []
        self.shown = True
        said, answers = dialog
        message = " ".join(said + answers)[:500]
        resets_at = reset_on_screen(message, now or datetime.now(UTC))
        return [
            limit_event(
                "limit_reached", source, "limit dialog", said[0], kind="usage", resets_at=resets_at, message=message
            )
        ]


def _dialog(lines: list[str]) -> tuple[list[str], list[str]] | None:
    """The dialog's words and its answers ("1. Keep trying", "2. Stop"), or None where the screen
    shows none (a chat line quoting the words has no answers under it)."""
    start = next((index for index, line in enumerate(lines) if line.startswith(USAGE_LIMIT)), None)
    if start is None:
        return None
    first = next((index for index in range(start, len(lines)) if _CHOICE.match(lines[index])), None)
    if first is None:
        return None
    last = next((index for index in range(first, len(lines)) if not _CHOICE.match(lines[index])), len(lines))
    said = [line for line in lines[start:first] if line]
    return said, [line.removeprefix("● ") for line in lines[first:last]]


def reset_on_screen(text: str, now: datetime) -> str | None:
    """The reset Gemini shows as ISO 8601 UTC. It cuts the seconds ("3:55 AM" for 3:55:29): the
    end of that minute, the first moment the quota surely reset, and the next such moment from
    `now`'s minute on. A zone by name ("PST") is Gemini's local one: this machine's."""
    found = _RESETS.search(text)
    if found is None:
        return None
    zone = _zone(found["zone"] or "")
    hour = int(found["hour"]) % 12 + (12 if found["half"].upper() == "PM" else 0)
    local_now = now.astimezone(zone)
    moment = local_now.replace(hour=hour, minute=int(found["minute"]), second=0, microsecond=0)
    if moment < local_now.replace(second=0, microsecond=0):
        moment += timedelta(days=1)
    return (moment + timedelta(minutes=1)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _zone(name: str) -> tzinfo | None:
    """UTC and a written offset exactly; any other name is the machine's local zone (None)."""
    if name.upper() in ("UTC", "GMT"):
        return UTC
    offset = _OFFSET.match(name.upper())
    if offset is None:
        return None
    minutes = int(offset["hours"]) * 60 + int(offset["minutes"] or 0)
    return timezone(timedelta(minutes=-minutes if offset["sign"] == "-" else minutes))


def stop_key(message: str | None) -> str:
    """The number of the dialog's "Stop", as the limit's message kept it from the screen."""
    found = _STOP_ANSWER.search(message or "")
    return found["number"] if found else DEFAULT_STOP


def cut_prompt(hooks_file: Path) -> str | None:
    """The prompt of the turn the limit cut, where Gemini dropped it: 0.61.0 rolls its history
    back to before a prompt whose request failed, so `continue` alone would reach a model that
    never saw it. Where a tool ran in that turn (AfterTool), the failed request carried the tool's
    result, which Gemini keeps with the prompt: then None, and `continue` follows the whole turn."""
    try:
        lines = hooks_file.read_bytes().splitlines()
    except OSError:
        return None
    prompt = None
    for line in lines:
        payload = hook_payload(line)
        if payload is not None and payload[1] == "BeforeAgent":
            prompt = text_field(payload[0], "prompt")
        elif payload is not None and payload[1] == "AfterTool":
            prompt = None
    return prompt if prompt and len(prompt) <= MAX_RESENT_PROMPT else None


@hookimpl(specname="limit_resume")
def limit_resume(ctx: SpawnContext, limit: LimitReport) -> LimitResume:
    """Stop's number picks "Stop" at once and leaves the dialog on the same model (Enter would
    take its first answer: retry now, or switch the model); Backspace takes the number back out
    of the prompt, should the dialog have been closed already. Then the cut prompt again, as a
    person would recall it with Up, or `continue` where Gemini kept the turn. A limit Gemini
    retries by itself (`retries`) is waited for: no key."""
    if retries.own_retry(limit):
        return LimitResume(how="wait", text=None)
    text = cut_prompt(home.hooks_file(ctx)) or "continue"
    return LimitResume(how="text", keys=[stop_key(limit.message), "backspace"], text=text)
