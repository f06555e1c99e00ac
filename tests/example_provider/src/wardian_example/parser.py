"""`wardian-example-cli` output → provider events: a parser object per source."""

from typing import Any

from wardian_core.provider import EventKind, OutputSource, ParseResult, hookimpl
from wardian_core.provider.parsing import (
    JsonLinesParser,
    SourceReader,
    TerminalText,
    count,
    limit_event,
    text_field,
    usage_event,
)

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


class ExampleLines(JsonLinesParser):
    """A headless run's stdout, or a telemetry log of permission requests."""

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        if self.source.name in (*TELEMETRY_SOURCES, "hooks"):
            if record.get("event") != "permission_request":
                return ParseResult()
            tool = text_field(record, "tool") or "a tool"
            asked = self.event(
                "approval_requested",
                "event=permission_request",
                line,
                message=f"asks to run {tool}",
                reason="tool",
                dialog="allow",
            )
            return ParseResult(events=[asked])
        kind = HEADLESS_EVENTS.get(str(record.get("type")))
        if kind is None:
            return ParseResult()
        dialog = {"reason": "tool", "dialog": "allow"} if kind == "approval_requested" else {}
        fields = {"session_id": text_field(record, "session_id"), "message": text_field(record, "message"), **dialog}
        return ParseResult(events=[self.event(kind, f"type={record['type']}", line, **fields)])


class ExampleTerminal(SourceReader):
    """The example CLI's terminal, read from its stream alone (it draws no screen to look at)."""

    def __init__(self, source: OutputSource) -> None:
        super().__init__(source)
        self.text = TerminalText()
        # Kept so a marker split across two reads is still seen once.
        self.tail = ""
        self.dialog_open = False
        self.seen_prompt = False

    def feed(self, data: bytes) -> ParseResult:
        text = self.tail + self.text.feed(data)
        events = []
        if APPROVAL in text:
            events.append(self.event("approval_requested", "approval dialog", APPROVAL, reason="tool", dialog="allow"))
            self.dialog_open = True
            text = text[text.index(APPROVAL) + len(APPROVAL) :]
        for marker, answer in ANSWERS if self.dialog_open else ():
            if marker in text:
                self.dialog_open = False
                events.append(self.event("approval_resolved", "dialog answered", marker.strip(), answer=answer))
        if text.endswith(PROMPT):
            kind: EventKind = "turn_completed" if self.seen_prompt else "ready"
            self.seen_prompt = True
            events.append(self.event(kind, "prompt", PROMPT))
        self.tail = "" if events else text[-len(APPROVAL) :]
        return ParseResult(events=events)


class ExampleHookLog(ExampleLines):
    """The hook log: a turn's steps, and its output tokens when it completes. A turn is named
    by how many completed before it in the log, so this parser's memory is the log read so far."""

    def __init__(self, source: OutputSource) -> None:
        super().__init__(source)
        self.completed = 0

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        name = record.get("event")
        if name == "turn_completed":
            self.completed += 1
            turn = f"turn-{self.completed}"
            tokens = count(record, "output_tokens")
            done = self.event("turn_completed", "event=turn_completed", line)
            used = usage_event(self.source, "event=turn_completed", line, turn_key=turn, output_tokens=tokens)
            return ParseResult(events=[done, used])
        if name in ("limit_reached", "limit_retrying"):
            report = {key: text_field(record, key) for key in ("resets_at", "retry_at", "message")}
            kind_of_limit = text_field(record, "kind") or "other"
            return ParseResult(
                events=[limit_event(name, self.source, f"event={name}", line, kind=kind_of_limit, **report)]
            )
        kind = HOOK_EVENTS.get(str(name))
        if kind is None:
            return super().read(record, line)  # a permission request, as the approvals log has it
        answer = {"answer": record["answer"]} if record.get("answer") in ("accepted", "rejected", "dismissed") else {}
        return ParseResult(events=[self.event(kind, f"event={name}", line, **answer)])


@hookimpl
def parse_output(source: OutputSource) -> SourceReader:
    if source.format == "chunks":
        return ExampleTerminal(source)
    return ExampleHookLog(source) if source.name == "hooks" else ExampleLines(source)
