"""`wardian-example-cli` output → provider events: a parser object per source."""

from dataclasses import dataclass, field

from wardian_core import hookimpl
from wardian_core.parsing.escapes import TerminalText
from wardian_core.parsing.events import event
from wardian_core.parsing.jsonl import json_object, text_field
from wardian_core.parsing.usage import count, limit_event, usage_event
from wardian_core.provider_models import EventKind, OutputSource, ParseResult

HEADLESS_EVENTS: dict[str, EventKind] = {
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


TELEMETRY_SOURCES = ("approvals", "events")
HOOK_EVENTS: dict[str, EventKind] = {"turn_started": "turn_started", "permission_resolved": "approval_resolved"}


@dataclass
class TerminalState:
    text: TerminalText = field(default_factory=TerminalText)
    # Kept so a marker split across two reads is still seen once.
    tail: str = ""
    dialog_open: bool = False
    seen_prompt: bool = False


def parse_line(source: OutputSource, data: bytes) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    line = data.decode("utf-8", "replace")
    if source.name in (*TELEMETRY_SOURCES, "hooks"):
        if record.get("event") == "permission_request":
            tool = text_field(record, "tool") or "a tool"
            return ParseResult(
                events=[
                    event(
                        "approval_requested",
                        source,
                        "event=permission_request",
                        line,
                        message=f"asks to run {tool}",
                        reason="tool",
                        dialog="allow",
                    )
                ]
            )
        return ParseResult()
    kind = HEADLESS_EVENTS.get(str(record.get("type")))
    if kind is None:
        return ParseResult()
    dialog = {"reason": "tool", "dialog": "allow"} if kind == "approval_requested" else {}
    fields = {"session_id": text_field(record, "session_id"), "message": text_field(record, "message"), **dialog}
    return ParseResult(events=[event(kind, source, f"type={record['type']}", line, **fields)])


def parse_terminal(source: OutputSource, data: bytes, state: TerminalState) -> ParseResult:
    text = state.tail + state.text.feed(data)
    events = []
    if APPROVAL in text:
        events.append(event("approval_requested", source, "approval dialog", APPROVAL, reason="tool", dialog="allow"))
        state.dialog_open = True
        text = text[text.index(APPROVAL) + len(APPROVAL) :]
    for marker, answer in ANSWERS if state.dialog_open else ():
        if marker in text:
            state.dialog_open = False
            events.append(event("approval_resolved", source, "dialog answered", marker.strip(), answer=answer))
    if text.endswith(PROMPT):
        kind: EventKind = "turn_completed" if state.seen_prompt else "ready"
        state.seen_prompt = True
        events.append(event(kind, source, "prompt", PROMPT))
    state.tail = "" if events else text[-len(APPROVAL) :]
    return ParseResult(events=events)


@dataclass
class TerminalParser:
    source: OutputSource
    state: TerminalState = field(default_factory=TerminalState)

    def feed(self, data: bytes) -> ParseResult:
        return parse_terminal(self.source, data, self.state)


@dataclass
class HookLogParser:
    """The hook log: a turn's steps, and its output tokens when it completes. A turn is named
    by how many completed before it in the log, so this parser's state is the log read so far."""

    source: OutputSource
    completed: int = 0

    def feed(self, data: bytes) -> ParseResult:
        record = json_object(data) or {}
        name, line = record.get("event"), data.decode("utf-8", "replace")
        if name == "turn_completed":
            self.completed += 1
            turn = f"turn-{self.completed}"
            tokens = count(record, "output_tokens")
            done = event("turn_completed", self.source, "event=turn_completed", line)
            return ParseResult(
                events=[
                    done,
                    usage_event(self.source, "event=turn_completed", line, turn_key=turn, output_tokens=tokens),
                ]
            )
        if name in ("limit_reached", "limit_retrying"):
            report = {key: text_field(record, key) for key in ("resets_at", "retry_at", "message")}
            kind_of_limit = text_field(record, "kind") or "other"
            return ParseResult(
                events=[limit_event(name, self.source, f"event={name}", line, kind=kind_of_limit, **report)]
            )
        kind = HOOK_EVENTS.get(str(name))
        if kind is None:
            return parse_line(self.source, data)  # a permission request, as the approvals log has it
        answer = {"answer": record["answer"]} if record.get("answer") in ("accepted", "rejected", "dismissed") else {}
        return ParseResult(events=[event(kind, self.source, f"event={name}", line, **answer)])


@dataclass
class LineParser:
    source: OutputSource

    def feed(self, data: bytes) -> ParseResult:
        return parse_line(self.source, data)


@hookimpl
def parse_output(source: OutputSource) -> TerminalParser | HookLogParser | LineParser:
    if source.format == "chunks":
        return TerminalParser(source)
    return HookLogParser(source) if source.name == "hooks" else LineParser(source)
