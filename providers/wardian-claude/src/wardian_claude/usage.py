"""What Claude Code records of a turn's cost.

Interactive sessions: its transcript, `<config>/projects/<workspace, each character not a letter
or digit made "-">/<session id>.jsonl` (2.1.197, 2.1.330), one line per content block of each
assistant message with the message's `usage` (Anthropic's: `input_tokens` without the cache
reads and writes, counted apart). The transcript states no cost and no context window: both are
null. Headless runs: the `result` line totals the run, with `total_cost_usd` and, per model in
`modelUsage`, its cost and context window.
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import (
    amount,
    count,
    iso_time,
    json_object,
    object_field,
    plus,
    text_field,
    usage_event,
)

TRANSCRIPT_SOURCE_NAME = "claude-transcript"
# Claude cuts a longer folder name and appends a hash of the path (2.1.197, 2.1.330).
FOLDER_NAME_LIMIT = 200
# The model Claude names on a message it made up itself (an API error shown as a reply).
SYNTHETIC_MODEL = "<synthetic>"


def config_dir(environ: "os._Environ[str] | dict[str, str]") -> Path:
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(environ.get("HOME") or Path.home()) / ".claude"


def transcript_file(ctx: SpawnContext, environ: "os._Environ[str] | dict[str, str]") -> Path | None:
    """Where Claude writes the session's transcript (None while the session id is unknown).

    Named, not looked for: Claude makes the file only as the first turn ends, after the host
    chose what to follow (and its Stop hook may come before it)."""
    session = ctx.provider_session_id
    if not session:
        return None
    # Claude names the folder after its working directory as the kernel gives it: links resolved.
    return config_dir(environ) / "projects" / project_folder(os.path.realpath(ctx.workspace)) / f"{session}.jsonl"


def project_folder(path: str) -> str:
    """Claude's folder name for `path` (2.1.197, 2.1.330): JavaScript's view of the text, UTF-16
    units (a character beyond the BMP is two), each but an ASCII letter or digit made "-"; a
    longer name than FOLDER_NAME_LIMIT is cut there and given the path's string hash."""
    # Bytes of the path that are not UTF-8 reach JavaScript as U+FFFD.
    units = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace").encode("utf-16-le")
    codes = [int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2)]
    name = "".join(chr(code) if chr(code).isascii() and chr(code).isalnum() else "-" for code in codes)
    if len(name) <= FOLDER_NAME_LIMIT:
        return name
    return f"{name[:FOLDER_NAME_LIMIT]}-{_base36(abs(_string_hash(codes)))}"


def _string_hash(codes: list[int]) -> int:
    """Java's String.hashCode, as Claude computes it: `h = h * 31 + unit` in signed 32 bits."""
    value = 0
    for code in codes:
        value = (value * 31 + code) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if number == 0:
            return digits


def token_figures(usage: dict[str, Any]) -> dict[str, int | None]:
    """Anthropic's `usage` as UsageReport's token fields. The thinking inside the output is told
    by Claude 2.1.330 (`output_tokens_details.thinking_tokens`), not by 2.1.197: unknown there."""
    return {
        "input_tokens": count(usage, "input_tokens"),
        "output_tokens": count(usage, "output_tokens"),
        "cache_read_tokens": count(usage, "cache_read_input_tokens"),
        "cache_write_tokens": count(usage, "cache_creation_input_tokens"),
        "reasoning_tokens": count(object_field(usage, "output_tokens_details"), "thinking_tokens"),
    }


def context_used(usage: dict[str, Any]) -> int | None:
    """The context a call read, fresh and cached, as Claude's own context meter counts it (its
    status line's `current_usage`, 2.1.330). Its output is left out: a transcript line may carry
    the count of the stream's start (1), not its end."""
    return plus(
        *(count(usage, key) for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
    )


def parse_transcript(source: OutputSource, data: bytes) -> ParseResult:
    """One transcript line: an assistant message's usage, named by the message id, so the lines of
    one message (each content block repeats it) and a re-read count it once."""
    record = json_object(data)
    if record is None or record.get("type") != "assistant":
        return ParseResult()
    message = object_field(record, "message")
    usage, message_id, model = object_field(message, "usage"), text_field(message, "id"), text_field(message, "model")
    if not usage or message_id is None or model == SYNTHETIC_MODEL:
        return ParseResult()
    line = f"assistant {message_id} {model} usage={usage}"
    reported = usage_event(
        source,
        "transcript assistant usage",
        line,
        turn_key=message_id,
        model=model,
        context_used=context_used(usage),
        recorded_at=iso_time(record.get("timestamp")),
        **token_figures(usage),
    )
    return ParseResult(events=[reported])


@dataclass
class HeadlessUsage:
    """A headless run's memory for its `result`: the newest assistant message's usage (what the
    context holds now) and the model the run started on."""

    model: str | None = None
    last_call: dict[str, Any] | None = None

    def remember(self, record: dict[str, Any]) -> None:
        if record.get("type") == "system" and record.get("subtype") == "init":
            self.model = text_field(record, "model") or self.model
        elif record.get("type") == "assistant":
            self.last_call = object_field(object_field(record, "message"), "usage") or self.last_call

    def result_usage(self, source: OutputSource, record: dict[str, Any]) -> ProviderEvent | None:
        """The run's totals, stated by Claude with its cost, as one turn named by the result's uuid."""
        usage = object_field(record, "usage")
        key = text_field(record, "uuid") or text_field(record, "session_id")
        if not usage or key is None:
            return None
        by_model = object_field(record, "modelUsage")
        # One model answered the run: its context window. Several (a subagent on another): unknown.
        model_name = next(iter(by_model)) if len(by_model) == 1 else self.model
        model = object_field(by_model, model_name) if model_name else {}
        return usage_event(
            source,
            "result usage",
            f"result usage={usage} total_cost_usd={record.get('total_cost_usd')}",
            turn_key=key,
            model=model_name,
            cost_usd=amount(record, "total_cost_usd"),
            context_used=context_used(self.last_call) if self.last_call else None,
            context_window=count(model, "contextWindow") or None,
            **token_figures(usage),
        )
