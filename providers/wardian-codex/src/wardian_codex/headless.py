"""Headless runs: `codex exec --json` (thread.started, turn.started, item.*, turn.completed,
error, turn.failed). Its turn.completed carries no text: the turn's last `agent_message`
item is kept and becomes the turn_completed's message (a workflow node's output).

Commentary (`agent_message`) is never a status change. turn.completed's `usage` is the turn's
(every model call of it): a `usage_reported` before the `turn_completed`.
"""

from typing import Any

from wardian_codex.usage import token_figures
from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import JsonLinesParser, api_error_message, object_field, text_field, usage_event


class CodexHeadless(JsonLinesParser):
    """`codex exec --json`: the thread, its turns, and the text of the turn's newest agent message,
    until the turn ends."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.reply: str | None = None
        self.thread_id: str | None = None
        self.turns = 0

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        kind = record.get("type")
        rule = f"type={kind}"
        thread_id = text_field(record, "thread_id")
        if kind == "thread.started" and thread_id:
            self.thread_id = thread_id
            return ParseResult(events=[self.event("session_started", rule, line, session_id=thread_id)])
        if kind == "turn.started":
            return ParseResult(events=[self.event("turn_started", rule, line)])
        item = object_field(record, "item")
        if kind in ("item.started", "item.updated", "item.completed") and item.get("type") == "command_execution":
            return ParseResult(events=[self.event("generating", f"{rule} command_execution", line)])
        if kind == "item.completed" and item.get("type") == "agent_message":
            self.reply = text_field(item, "text") or self.reply
            return ParseResult()
        if kind == "turn.completed":
            reply, self.reply = self.reply, None
            self.turns += 1
            completed = self.event("turn_completed", rule, line, message=reply)
            key = f"{self.thread_id or 'exec'}:turn={self.turns}"
            return ParseResult(events=[*_turn_usage(self.source, record, line, key), completed])
        if kind == "error":
            return ParseResult(events=[self.event("error", rule, line, message=api_error_message(record))])
        if kind == "turn.failed":
            message = api_error_message(record.get("error"))
            return ParseResult(events=[self.event("error", rule, line, message=message)])
        return ParseResult()


def _turn_usage(source: OutputSource, record: dict[str, Any], line: str, key: str) -> list[ProviderEvent]:
    usage = object_field(record, "usage")
    if not usage:
        return []
    return [usage_event(source, "type=turn.completed usage", line, turn_key=key, **token_figures(usage))]
