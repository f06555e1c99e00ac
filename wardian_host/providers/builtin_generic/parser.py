"""Status from output activity.

Output after a quiet spell starts a turn; `idle_quiet_seconds` without output ends it
(the host calls back after the delay we ask for, so nothing polls). Until the command
has been quiet once it is still starting. A `prompt_pattern` matching the last line of
output ends a turn at once.
"""

import codecs
import re
from typing import Any

from wardian_core.provider_models import (
    EventKind,
    Evidence,
    OutputSource,
    ParseResult,
    ProviderEvent,
    SpawnContext,
    excerpt,
)
from wardian_host.providers.builtin_generic.profile import DEFAULT_IDLE_QUIET_SECONDS

# CSI, OSC (ended by BEL or ST), and two-byte escapes: drawing, not content.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# An escape sequence cut off at the end of a chunk; kept for the next chunk.
_UNFINISHED_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?$")
_TAIL_CHARS = 400


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


# Only the end of a large batch can hold the prompt; its start is scanned for content only.
_LARGE_BATCH_BYTES = 16384


def visible_text(state: dict[str, Any], data: bytes) -> str:
    """Decoded output without escape sequences, across chunk boundaries."""
    if len(data) > _LARGE_BATCH_BYTES:
        state.pop("unfinished", None)
        state.pop("decoder", None)  # restart decoding at the cut; a split character is dropped
        head = visible_text(state, data[: _LARGE_BATCH_BYTES // 4])
        state.pop("unfinished", None)
        state.pop("decoder", None)
        tail = visible_text(state, data[-_LARGE_BATCH_BYTES:])
        return tail if tail.strip() else head
    decoder = state.setdefault("decoder", codecs.getincrementaldecoder("utf-8")(errors="replace"))
    text = state.pop("unfinished", "") + decoder.decode(data)
    unfinished = _UNFINISHED_ESCAPE.search(text)
    if unfinished:
        state["unfinished"] = unfinished.group(0)
        text = text[: unfinished.start()]
    return _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))


def _event(kind: EventKind, source: OutputSource, rule: str, line: str | None = None) -> ProviderEvent:
    return ProviderEvent(kind=kind, evidence=Evidence(source=source.name, rule=rule, line=line))


def _went_quiet(state: dict[str, Any], source: OutputSource, rule: str, line: str | None) -> list[ProviderEvent]:
    phase, state["phase"] = state["phase"], "idle"
    if phase == "starting":
        return [_event("ready", source, rule, line)]
    if phase == "busy":
        return [_event("turn_completed", source, rule, line)]
    return []


def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    quiet = quiet_seconds(ctx)
    if "phase" not in state:
        state["phase"] = "starting"
        state["tail"] = ""
        if not data:  # the source opened: a command that prints nothing is ready once quiet
            return ParseResult(call_again_after=quiet)
    if not data:
        return ParseResult(events=_went_quiet(state, source, f"quiet for {quiet:g}s", None))
    text = visible_text(state, data)
    if not text.strip():
        return ParseResult()  # cursor moves and redraws are not activity
    state["tail"] = (state["tail"] + text)[-_TAIL_CHARS:]
    last_line = state["tail"].rsplit("\n", 1)[-1]
    pattern = prompt_pattern(ctx)
    if pattern is not None and pattern.search(last_line):
        return ParseResult(events=_went_quiet(state, source, f"prompt_pattern {pattern.pattern}", excerpt(last_line)))
    events = []
    if state["phase"] == "idle":
        state["phase"] = "busy"
        line = next((line for line in text.split("\n") if line.strip()), text)
        events.append(_event("turn_started", source, "output after quiet", excerpt(line)))
    return ParseResult(events=events, call_again_after=quiet)
