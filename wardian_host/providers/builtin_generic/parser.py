"""Status from output activity.

Output after a quiet spell starts a turn; `idle_quiet_seconds` without output ends it
(the host calls back after the delay we ask for, so nothing polls). Until the command
has been quiet once it is still starting. A `prompt_pattern` matching the last line of
output ends a turn at once.
"""

import re
from dataclasses import dataclass, field
from typing import Literal

from wardian_core.parsing.escapes import TerminalText, normalize_newlines
from wardian_core.parsing.events import event
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent, SpawnContext, excerpt
from wardian_host.providers.builtin_generic.profile import DEFAULT_IDLE_QUIET_SECONDS

_TAIL_CHARS = 400
# Only the end of a large batch can hold the prompt; its start is scanned for content only.
_LARGE_BATCH_BYTES = 16384


@dataclass
class GenericState:
    phase: Literal["starting", "busy", "idle"] = "starting"
    tail: str = ""
    text: TerminalText = field(default_factory=TerminalText)


def quiet_seconds(ctx: SpawnContext) -> float:
    value = ctx.launch.settings.get("idle_quiet_seconds", DEFAULT_IDLE_QUIET_SECONDS)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return DEFAULT_IDLE_QUIET_SECONDS
    return float(value)


def prompt_pattern(ctx: SpawnContext) -> re.Pattern[str] | None:
    pattern = ctx.launch.settings.get("prompt_pattern")
    if not pattern:
        return None
    try:
        return re.compile(str(pattern))
    except re.error:
        return None  # refused at launch by argv.check_settings; never raise here


def visible_text(state: GenericState, data: bytes) -> str:
    """Decoded output without escape sequences, across chunk boundaries."""
    if len(data) > _LARGE_BATCH_BYTES:
        # Restart decoding at each cut (a split character is dropped): only head and tail matter.
        state.text = TerminalText()
        head = state.text.feed(data[: _LARGE_BATCH_BYTES // 4])
        state.text = TerminalText()
        tail = state.text.feed(data[-_LARGE_BATCH_BYTES:])
        return normalize_newlines(tail if tail.strip() else head)
    return normalize_newlines(state.text.feed(data))


def _went_quiet(state: GenericState, source: OutputSource, rule: str, line: str | None) -> list[ProviderEvent]:
    phase, state.phase = state.phase, "idle"
    if phase == "starting":
        return [event("ready", source, rule, line)]
    if phase == "busy":
        return [event("turn_completed", source, rule, line)]
    return []


def opened(ctx: SpawnContext) -> ParseResult:
    """A command that prints nothing is ready once quiet."""
    return ParseResult(call_again_after=quiet_seconds(ctx))


def quiet(ctx: SpawnContext, source: OutputSource, state: GenericState) -> ParseResult:
    return ParseResult(events=_went_quiet(state, source, f"quiet for {quiet_seconds(ctx):g}s", None))


def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: GenericState) -> ParseResult:
    text = visible_text(state, data)
    if not text.strip():
        return ParseResult()  # cursor moves and redraws are not activity
    state.tail = (state.tail + text)[-_TAIL_CHARS:]
    last_line = state.tail.rsplit("\n", 1)[-1]
    pattern = prompt_pattern(ctx)
    if pattern is not None and pattern.search(last_line):
        return ParseResult(events=_went_quiet(state, source, f"prompt_pattern {pattern.pattern}", excerpt(last_line)))
    events = []
    if state.phase == "idle":
        state.phase = "busy"
        line = next((line for line in text.split("\n") if line.strip()), text)
        events.append(event("turn_started", source, "output after quiet", line))
    return ParseResult(events=events, call_again_after=quiet_seconds(ctx))
