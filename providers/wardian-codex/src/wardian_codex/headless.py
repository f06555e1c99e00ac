"""Headless runs: `codex exec --json` (thread.started, turn.started, item.*, turn.completed,
error, turn.failed). Its turn.completed carries no text: the turn's last `agent_message`
item is kept and becomes the turn_completed's message (a workflow node's output).

Commentary (`agent_message`) is never a status change. turn.completed's `usage` is the turn's
(every model call of it): a `usage_reported` before the `turn_completed`.
"""

from dataclasses import dataclass

from wardian_codex.usage import token_figures
from wardian_core.provider import OutputSource, ParseResult, ProviderEvent
from wardian_core.provider.parsing import api_error_message, event, json_object, object_field, text_field, usage_event


@dataclass
class HeadlessState:
    """`codex exec --json`: the text of the turn's newest agent message, until the turn ends."""

    reply: str | None = None
    thread_id: str | None = None
    turns: int = 0


def parse_headless(source: OutputSource, data: bytes, state: HeadlessState) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    line = data.decode("utf-8", "replace")
    kind = record.get("type")
    rule = f"type={kind}"
    thread_id = text_field(record, "thread_id")
    if kind == "thread.started" and thread_id:
        state.thread_id = thread_id
        return ParseResult(events=[event("session_started", source, rule, line, session_id=thread_id)])
    if kind == "turn.started":
        return ParseResult(events=[event("turn_started", source, rule, line)])
    item = object_field(record, "item")
    if kind in ("item.started", "item.updated", "item.completed") and item.get("type") == "command_execution":
        return ParseResult(events=[event("generating", source, f"{rule} command_execution", line)])
    if kind == "item.completed" and item.get("type") == "agent_message":
        state.reply = text_field(item, "text") or state.reply
        return ParseResult()
    if kind == "turn.completed":
        reply, state.reply = state.reply, None
        state.turns += 1
        completed = event("turn_completed", source, rule, line, message=reply)
        return ParseResult(events=[*_turn_usage(source, record, line, state), completed])
    if kind == "error":
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(record))])
    if kind == "turn.failed":
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(record.get("error")))])
    return ParseResult()


def _turn_usage(
    source: OutputSource, record: dict[str, object], line: str, state: HeadlessState
) -> list[ProviderEvent]:
    usage = object_field(record, "usage")
    if not usage:
        return []
    key = f"{state.thread_id or 'exec'}:turn={state.turns}"
    return [usage_event(source, "type=turn.completed usage", line, turn_key=key, **token_figures(usage))]
