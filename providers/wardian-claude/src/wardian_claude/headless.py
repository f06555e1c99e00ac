"""Headless runs: `-p --output-format stream-json --verbose` lines (or the one
`--output-format json` object). The `result` line's usage and cost come before its turn's end."""

from typing import Any

from wardian_claude.usage import HeadlessUsage
from wardian_core.provider import OutputSource, ParseResult
from wardian_core.provider.parsing import event, json_object, text_field


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


def parse_headless(source: OutputSource, data: bytes, usage: HeadlessUsage) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    usage.remember(record)
    kind, subtype = record.get("type"), record.get("subtype")
    session_id = text_field(record, "session_id")
    if kind == "system" and subtype == "init":
        line = f"init {session_id} model={record.get('model')}"
        started = [event("session_started", source, "system/init", line, session_id=session_id)] if session_id else []
        return ParseResult(events=[*started, event("turn_started", source, "system/init", "init")])
    if kind in ("assistant", "user"):
        rule = "assistant" if kind == "assistant" else "user tool_result"
        return ParseResult(events=[event("generating", source, rule, _content_summary(record.get("message")))])
    if kind == "result":
        reported = usage.result_usage(source, record)
        return ParseResult(events=[*([reported] if reported else []), _result_event(source, record, session_id)])
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
