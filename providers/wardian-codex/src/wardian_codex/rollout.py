"""`rollout` / `rollout-resumed`: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl`, the
interactive session's own log: turns, command output, errors, and each model call's usage
(`token_count`). A resumed thread's file is followed from its end (its history is no news).
Read line by line, remembering the model the turn runs on (`turn_context`).
"""

import json
from datetime import UTC, datetime
from typing import Any

from wardian_codex import limits
from wardian_codex.profile import EXEC_DIALOG
from wardian_codex.usage import rate_limit_windows, token_figures
from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import (
    JsonLinesParser,
    api_error_message,
    count,
    event,
    in_turn,
    iso_time,
    object_field,
    plus,
    text_field,
    usage_event,
)

EXEC_EVENTS = ("exec_command_begin", "exec_command_start", "exec_command_output_delta", "exec_command_end")


class CodexRollout(JsonLinesParser):
    """One rollout line's events, each of the turn it belongs to: the hooks tell the same turn,
    and whichever is read second must not start or end it again."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.model: str | None = None
        # The turn the lines belong to: most name it (`turn_id`); a `response_item` (a tool's
        # output) is of the turn named last.
        self.turn: str | None = None
        # The last `rate_limits` a `token_count` recorded: a usage limit's error names no window,
        # the snapshot Codex wrote from the refusal's headers just before it does.
        self.rate_limits: dict[str, Any] = {}

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        payload = object_field(record, "payload")
        self.turn = text_field(payload, "turn_id") or self.turn
        return in_turn(self._read_record(record, payload, line), self.turn)

    def _read_record(self, record: dict[str, Any], payload: dict[str, Any], text: str) -> ParseResult:
        record_type, payload_type = record.get("type"), payload.get("type")
        rule = f"{record_type}/{payload_type}" if payload_type else str(record_type)
        # The payload is what says why; the envelope (timestamp, ordinal) would fill the excerpt.
        line = json.dumps(payload, separators=(",", ":"), ensure_ascii=False) if payload else text
        if record_type == "session_meta":
            session_id = text_field(payload, "id") or text_field(payload, "session_id")
            if session_id:
                return ParseResult(events=[self.event("session_started", rule, line, session_id=session_id)])
            return ParseResult()
        if record_type == "turn_context":
            self.model = text_field(payload, "model") or self.model
            return ParseResult()
        if record_type == "response_item" and payload_type == "function_call_output":
            return ParseResult(events=[self.event("generating", rule, line)])
        # An escalated `function_call` is no status change here: Codex 0.169.0 logs it before its
        # dialog is drawn, and a key sent then lands in the composer. The dialog on screen is the
        # approval (tui), with the command it shows as its evidence.
        if record_type != "event_msg":
            return ParseResult()
        if payload_type == "task_started":
            return ParseResult(events=[self.event("turn_started", rule, line)])
        if payload_type == "exec_approval_request":  # not written by 0.169.0; kept for other versions
            command = payload.get("command")
            if isinstance(command, list):
                command = " ".join(str(part) for part in command)
            requested = self.event(
                "approval_requested",
                rule,
                str(command or line),
                message=text_field(payload, "reason"),
                reason="tool",
                dialog=EXEC_DIALOG,
            )
            return ParseResult(events=[requested])
        if payload_type == "token_count":
            self.rate_limits = object_field(payload, "rate_limits") or self.rate_limits
            reported = token_count(self.source, payload, line, self.model, iso_time(record.get("timestamp")))
            return ParseResult(events=[reported] if reported else [])
        if payload_type in EXEC_EVENTS:
            return ParseResult(events=[self.event("generating", rule, line)])
        if payload_type == "item_completed":
            if object_field(payload, "item").get("type") == "CommandExecution":
                return ParseResult(events=[self.event("generating", f"{rule} CommandExecution", line)])
            return ParseResult()
        if payload_type == "task_complete":
            if payload.get("error"):
                return ParseResult(
                    events=[failed(self.source, rule, f"{rule} with error", line, payload["error"], self.rate_limits)]
                )
            return ParseResult(events=[self.event("turn_completed", rule, line)])
        if payload_type == "turn_aborted":
            return ParseResult(events=[self.event("turn_completed", rule, line, message=text_field(payload, "reason"))])
        if payload_type == "error":  # stream_error is a retry notice, not a failure
            return ParseResult(events=[failed(self.source, rule, rule, line, payload, self.rate_limits)])
        return ParseResult()


def failed(
    source: OutputSource, rule: str, error_rule: str, line: str, error: dict[str, Any], rate_limits: dict[str, Any]
) -> ProviderEvent:
    """A turn's error: a plan's usage limit cuts the turn, which waits for the reset (0.171.0 says
    so in `task_complete`'s error; an `error` event may say it too); any other error fails it."""
    if limits.is_usage_limit(error):
        now = datetime.now(UTC)
        return limits.limit_reached(source, f"{rule} usage limit", line, error, rate_limits, now)
    return event("error", source, error_rule, line, message=api_error_message(error))


def token_count(
    source: OutputSource, payload: dict[str, Any], line: str, model: str | None, recorded_at: str | None
) -> ProviderEvent | None:
    """A model call's usage. Codex writes a `token_count` again with the same totals (a rate-limit
    update, 0.169.0), and one whose `info` is null before the first call: the running total is
    what names the call, so a repeat counts once."""
    info = object_field(payload, "info")
    last, total = object_field(info, "last_token_usage"), object_field(info, "total_token_usage")
    running_total = count(total, "total_tokens")
    if not last or running_total is None:
        return None
    figures = token_figures(last)
    # The context holds what the last call read and wrote (Codex's own context meter, 0.169.0).
    context_used = count(last, "total_tokens") or plus(count(last, "input_tokens"), count(last, "output_tokens"))
    file_name = source.path.name if source.path else source.name
    return usage_event(
        source,
        "event_msg/token_count",
        line,
        turn_key=f"{file_name}:total={running_total}",
        rate_limits=rate_limit_windows(object_field(payload, "rate_limits")),
        model=model,
        context_used=context_used,
        context_window=count(info, "model_context_window"),
        recorded_at=recorded_at,
        **figures,
    )
