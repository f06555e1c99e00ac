"""Gemini headless output → provider events: one stdout line of `gemini -p <prompt> --output-format stream-json`
(Gemini CLI 0.61.0) per call, read without memory (parser.py guards the hook against anything unforeseen).

The records: `init` (session_id), `message` (the user's prompt echoed, then the assistant's text in
chunks with `delta: true`), `tool_use`, `tool_result`, `error` (severity `warning` or `error`) and a
last `result` whose `status` (`success` or `error`) tells how the turn ended, and whose `stats`
are the run's usage (usage.py).

A headless run never waits for a person (a tool it may not run is simply not offered to the
model), so nothing here is an approval.
"""

from typing import Any

from wardian_core.provider import ParseResult
from wardian_core.provider.parsing import JsonLinesParser, api_error_message, text_field
from wardian_gemini.usage import result_usage

HEADLESS_SOURCE = "headless"
TOOL_RECORDS = ("tool_use", "tool_result")


class GeminiHeadless(JsonLinesParser):
    """A run's stdout, read without memory."""

    at_rest = True

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        kind = record.get("type")
        rule = f"type={kind}"
        session_id = text_field(record, "session_id")
        if kind == "init" and session_id:
            return ParseResult(events=[self.event("session_started", rule, line, session_id=session_id)])
        role = record.get("role")
        if kind == "message" and role == "user":
            # The prompt echoed back: Gemini has taken the turn.
            return ParseResult(events=[self.event("turn_started", f"{rule} role=user", line)])
        if kind == "message" and role == "assistant":
            # Unlike Codex's commentary, these chunks are the answer being written: the model is at work.
            return ParseResult(events=[self.event("generating", f"{rule} role=assistant", line)])
        if kind in TOOL_RECORDS:
            # A failed tool (`tool_result` with status `error`) is the model's to handle; the turn goes on.
            return ParseResult(events=[self.event("generating", rule, line)])
        if kind == "result":
            reported = result_usage(self.source, record, line)
            usage = [reported] if reported else []
            status = text_field(record, "status")
            if status == "success":
                return ParseResult(events=[*usage, self.event("turn_completed", f"{rule} status=success", line)])
            message = api_error_message(record.get("error")) or status
            failed = f"{rule} status={status}" if status else rule
            return ParseResult(events=[*usage, self.event("error", failed, line, message=message)])
        if kind == "error":
            # A warning (a loop detected, a retry) is no failure: the `result` that follows tells how it ended.
            severity = text_field(record, "severity")
            if severity == "warning":
                return ParseResult()
            failed = f"{rule} severity={severity}" if severity else rule
            return ParseResult(events=[self.event("error", failed, line, message=api_error_message(record))])
        return ParseResult()
