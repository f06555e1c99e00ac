"""`rollout` / `rollout-resumed`: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl`, the
interactive session's own log: turns, command output, errors. A resumed thread's file is
followed from its end (its history is no news). Read line by line, without memory.
"""

import json

from wardian_codex.profile import EXEC_DIALOG
from wardian_core.parsing.events import event
from wardian_core.parsing.jsonl import api_error_message, json_object, object_field, text_field
from wardian_core.provider_models import OutputSource, ParseResult

EXEC_EVENTS = ("exec_command_begin", "exec_command_start", "exec_command_output_delta", "exec_command_end")


def parse_rollout(source: OutputSource, data: bytes) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    payload = object_field(record, "payload")
    record_type, payload_type = record.get("type"), payload.get("type")
    rule = f"{record_type}/{payload_type}" if payload_type else str(record_type)
    # The payload is what says why; the envelope (timestamp, ordinal) would fill the excerpt.
    line = (
        json.dumps(payload, separators=(",", ":"), ensure_ascii=False) if payload else data.decode("utf-8", "replace")
    )
    if record_type == "session_meta":
        session_id = text_field(payload, "id") or text_field(payload, "session_id")
        if session_id:
            return ParseResult(events=[event("session_started", source, rule, line, session_id=session_id)])
        return ParseResult()
    if record_type == "response_item" and payload_type == "function_call_output":
        return ParseResult(events=[event("generating", source, rule, line)])
    # An escalated `function_call` is no status change here: Codex 0.169.0 logs it before its
    # dialog is drawn, and a key sent then lands in the composer. The dialog on screen is the
    # approval (tui), with the command it shows as its evidence.
    if record_type != "event_msg":
        return ParseResult()
    if payload_type == "task_started":
        return ParseResult(events=[event("turn_started", source, rule, line)])
    if payload_type == "exec_approval_request":  # not written by 0.169.0; kept for other versions
        command = payload.get("command")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        requested = event(
            "approval_requested",
            source,
            rule,
            str(command or line),
            message=text_field(payload, "reason"),
            reason="tool",
            dialog=EXEC_DIALOG,
        )
        return ParseResult(events=[requested])
    if payload_type in EXEC_EVENTS:
        return ParseResult(events=[event("generating", source, rule, line)])
    if payload_type == "item_completed":
        if object_field(payload, "item").get("type") == "CommandExecution":
            return ParseResult(events=[event("generating", source, f"{rule} CommandExecution", line)])
        return ParseResult()
    if payload_type == "task_complete":
        if payload.get("error"):
            message = api_error_message(payload["error"])
            return ParseResult(events=[event("error", source, f"{rule} with error", line, message=message)])
        return ParseResult(events=[event("turn_completed", source, rule, line)])
    if payload_type == "turn_aborted":
        return ParseResult(events=[event("turn_completed", source, rule, line, message=text_field(payload, "reason"))])
    if payload_type == "error":  # stream_error is a retry notice, not a failure
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(payload))])
    return ParseResult()
