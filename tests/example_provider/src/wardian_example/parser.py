"""`wardian-example-cli` output → provider events. Never raises on bad input."""

import codecs
import json
from typing import Any

from wardian_core.provider_models import Evidence, OutputSource, ParseResult, ProviderEvent, excerpt

HEADLESS_EVENTS = {
    "session.started": "session_started",
    "turn.started": "turn_started",
    "tool.running": "generating",
    "approval.requested": "approval_requested",
    "turn.completed": "turn_completed",
    "error": "error",
    "session.ended": "session_ended",
}
PROMPT = "example> "
APPROVAL = "Allow? [y/n]"
# What the example CLI prints once its dialog is answered, and what that answer was.
ANSWERS = (("\nran", "accepted"), ("\ndenied", "rejected"))


def _event(kind: str, source: OutputSource, rule: str, line: str, **fields: Any) -> ProviderEvent:
    return ProviderEvent(kind=kind, evidence=Evidence(source=source.name, rule=rule, line=excerpt(line)), **fields)


def parse_line(source: OutputSource, data: bytes) -> ParseResult:
    line = data.decode("utf-8", "replace")
    try:
        record = json.loads(line)
    except ValueError:
        return ParseResult()
    if not isinstance(record, dict):
        return ParseResult()
    if source.name == "approvals":
        if record.get("event") == "permission_request":
            return ParseResult(events=[_event("approval_requested", source, "event=permission_request", line)])
        return ParseResult()
    kind = HEADLESS_EVENTS.get(str(record.get("type")))
    if kind is None:
        return ParseResult()
    session_id = record.get("session_id") if isinstance(record.get("session_id"), str) else None
    message = record.get("message") if isinstance(record.get("message"), str) else None
    return ParseResult(
        events=[_event(kind, source, f"type={record['type']}", line, session_id=session_id, message=message)]
    )


def parse_terminal(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    decoder = state.setdefault("decoder", codecs.getincrementaldecoder("utf-8")(errors="replace"))
    # Keep a short tail so a marker split across two reads is still seen once.
    text = state.get("tail", "") + decoder.decode(data)
    events = []
    if APPROVAL in text:
        events.append(_event("approval_requested", source, "approval dialog", APPROVAL))
        state["dialog_open"] = True
        text = text[text.index(APPROVAL) + len(APPROVAL) :]
    for marker, answer in ANSWERS if state.get("dialog_open") else ():
        if marker in text:
            state["dialog_open"] = False
            events.append(_event("approval_resolved", source, "dialog answered", marker.strip(), answer=answer))
    if text.endswith(PROMPT):
        kind = "turn_completed" if state.get("seen_prompt") else "ready"
        state["seen_prompt"] = True
        events.append(_event(kind, source, "prompt", PROMPT))
    state["tail"] = "" if events else text[-len(APPROVAL) :]
    return ParseResult(events=events)


def parse(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    if not data:
        return ParseResult()
    if source.format == "chunks":
        return parse_terminal(source, data, state)
    return parse_line(source, data)
