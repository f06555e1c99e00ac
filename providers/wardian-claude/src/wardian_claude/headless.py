"""Headless runs: `-p --output-format stream-json --verbose` lines (or the one
`--output-format json` object). The `result` line's usage and cost come before its turn's end."""

from typing import Any

from wardian_claude.usage import HeadlessUsage
from wardian_core.provider import OutputSource, ParseResult, SpawnContext
from wardian_core.provider.parsing import JsonLinesParser, event, text_field


def _content_summary(message: Any) -> str:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return ""
    parts = []
    for block in message["content"]:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif block.get("type") == "tool_use":
            parts.append(f"tool_use {block.get('name')}")
        elif block.get("type") == "tool_result":
            parts.append("tool_result" + (" (error)" if block.get("is_error") is True else ""))
    return " ".join(parts)


class ClaudeHeadless(JsonLinesParser):
    """A run's stdout, and its usage (the newest call's, the model it started on) for its result."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.usage = HeadlessUsage()

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        self.usage.remember(record)
        kind, subtype = record.get("type"), record.get("subtype")
        session_id = text_field(record, "session_id")
        if kind == "system" and subtype == "init":
            line = f"init {session_id} model={record.get('model')}"
            started = [self.event("session_started", "system/init", line, session_id=session_id)] if session_id else []
            return ParseResult(events=[*started, self.event("turn_started", "system/init", "init")])
        if kind in ("assistant", "user"):
            rule = "assistant" if kind == "assistant" else "user tool_result"
            return ParseResult(events=[self.event("generating", rule, _content_summary(record.get("message")))])
        if kind == "result":
            reported = self.usage.result_usage(self.source, record)
            ended = _result_event(self.source, record, session_id)
            return ParseResult(events=[*([reported] if reported else []), ended])
        return ParseResult()


def _result_event(source: OutputSource, record: dict[str, Any], session_id: str | None) -> Any:
    subtype = record.get("subtype")
    text = text_field(record, "result") or ""
    # An API error is still `subtype: "success"` (2.1.197): only is_error tells.
    if record.get("is_error") is True or (isinstance(subtype, str) and subtype != "success"):
        status = record.get("api_error_status")
        data = {
            "subtype": subtype if isinstance(subtype, str) else None,
            "api_error_status": status if isinstance(status, int) else None,
        }
        line = f"result {subtype}: {text}"
        message = text or "Claude reported an error"
        return event("error", source, "result is_error", line, message=message, data=data, session_id=session_id)
    return event("turn_completed", source, "result", f"result: {text}", message=text or None, session_id=session_id)
