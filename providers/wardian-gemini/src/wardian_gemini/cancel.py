"""A turn cancelled with Esc (what a hard budget types), as Gemini CLI 0.61.0 tells of it.

Esc under a turn ("esc to cancel") ends it at once, but no AfterAgent fires: the hooks fall
silent. What tells, in order of structure:

- a shell tool running at that moment ends with an AfterTool hook whose result says
  "Command cancelled by user." (the turn's abort killed it; a tool refused in its dialog fires
  no AfterTool at all);
- otherwise only the screen: an info line "(i) Request cancelled." (its icon U+2139) under the
  turn's prompt, also drawn when every tool of the turn was refused in its dialog (the turn
  ends then as well).

The line stays in the chat: `CancelledLine` tells it once per turn (named, as the hooks' events
are, by the time of its BeforeAgent record), only while it is below the newest prompt's echo,
and only with a chat above it unlike the last one told, so an old line on screen cannot end a
later turn. A tool can outlive the cancel: its AfterTool, of the turn already ended, then
changes nothing (the host drops an event of a turn whose end it has).
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wardian_core.provider import OutputSource, ProviderEvent
from wardian_core.provider.parsing import event, hook_payload, object_field, squeeze, text_field

CANCELLED = "Request cancelled."
MARKERS = (squeeze(CANCELLED),)
RULE = "request cancelled"
# The info item's row: its icon, then the text alone (a reply quoting it starts with "✦").
_CANCELLED_ROW = re.compile(r"^\u2139\s*Request cancelled\.$")
# A prompt's echo in the chat, " > text"; the input box below the footer's rule is left out.
_ECHO_ROW = re.compile(r"^> \S")
_RULE_ROW = re.compile(r"^─{20,}$")
# The shell tool's `returnDisplay` when the turn's abort killed it (0.61.0): alone, or followed by
# "\n\nOutput before cancellation:\n…"; with debug mode on it shows the `llmContent`, "Command was
# cancelled by user before it could start." (or "complete.", then the output).
TOOL_CANCELLED = "Command cancelled by user."
TOOL_CANCELLED_FOR_MODEL = "Command was cancelled by user before it could"


def cancelled_tool(record: dict[str, Any]) -> bool:
    """An AfterTool hook of a tool the turn's cancel killed."""
    response = object_field(record, "tool_response")
    shown = (text_field(response, "returnDisplay") or "").split("\n", 1)[0]
    return shown == TOOL_CANCELLED or TOOL_CANCELLED_FOR_MODEL in (text_field(response, "llmContent") or "")


def turn_begun(hooks_file: Path | None) -> str | None:
    """The newest turn in the hook log: its BeforeAgent's time, as `GeminiHooks` names turns."""
    try:
        lines = hooks_file.read_bytes().splitlines() if hooks_file is not None else []
    except OSError:
        return None
    for line in reversed(lines):
        payload = hook_payload(line)
        if payload is not None and payload[1] == "BeforeAgent":
            return text_field(payload[0], "timestamp")
    return None


def cancelled_chat(rows: list[str]) -> tuple[str, ...] | None:
    """The chat down to a "Request cancelled." line below its newest prompt echo (or below the
    top, the echo scrolled away), or None; `rows` stripped of their indent. The input box below
    the footer's rule is no chat."""
    rule = max((index for index, row in enumerate(rows) if _RULE_ROW.match(row)), default=len(rows))
    chat = rows[:rule]
    echo = max((index for index, row in enumerate(chat) if _ECHO_ROW.match(row)), default=-1)
    line = next((index for index in range(echo + 1, len(chat)) if _CANCELLED_ROW.match(chat[index])), None)
    return None if line is None else tuple(chat[: line + 1])


@dataclass
class CancelledLine:
    """The screen's "Request cancelled.", told once per turn: a turn begun (its BeforeAgent) while
    the old line still ends the chat, its echo not drawn yet, has the same chat above the line."""

    told_turn: str | None = None
    told_chat: tuple[str, ...] | None = None

    def look(self, source: OutputSource, rows: list[str], hooks_file: Path | None) -> list[ProviderEvent]:
        """`turn_completed` when the newest turn shows its cancel line and was not told yet."""
        chat = cancelled_chat(rows)
        if chat is None or chat == self.told_chat:
            return []
        turn = turn_begun(hooks_file)
        if self.told_chat is not None and turn == self.told_turn:
            return []
        self.told_turn, self.told_chat = turn, chat
        ended = event("turn_completed", source, RULE, CANCELLED, message="cancelled")
        return [ended.model_copy(update={"turn": turn})] if turn else [ended]
