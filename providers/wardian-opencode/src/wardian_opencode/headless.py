"""OpenCode headless output → provider events: one stdout line of `opencode run --format json`
(OpenCode 1.18.33) per call.

Every record names its session (`sessionID`, `ses_…`). A turn is one or more steps: `step_start`,
then `text` (the whole text of a part, no deltas) and `tool_use` (a tool's final state), then
`step_finish` whose `reason` says whether the model goes on (`tool-calls`: another step follows)
or is done (`stop`), with the step's usage (usage.py). An API error is an `error` record. `run`
never waits for a person: a permission set to `ask` is rejected on the spot (the `tool_use` ends
in `error`).
"""

from dataclasses import dataclass
from typing import Any

from wardian_core.parsing.events import event
from wardian_core.parsing.jsonl import api_error_message, json_object, object_field, text_field
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent
from wardian_opencode.usage import call_usage

# The step that ends with this reason is followed by another: the turn goes on.
TOOL_CALLS = "tool-calls"


@dataclass
class HeadlessState:
    session_id: str | None = None
    turn_started: bool = False


def parse_headless(source: OutputSource, data: bytes, state: HeadlessState) -> ParseResult:
    return ParseResult(events=_events(source, data, state))


def _events(source: OutputSource, data: bytes, state: HeadlessState) -> list[ProviderEvent]:
    record = json_object(data)
    if record is None:
        return []
    line = data.decode("utf-8", "replace")
    kind = text_field(record, "type")
    rule = f"type={kind}"
    events = _session(source, record, line, state)
    if kind == "step_start" and not state.turn_started:
        state.turn_started = True
        return [*events, event("turn_started", source, rule, line)]
    if kind in ("step_start", "text", "tool_use"):
        return [*events, event("generating", source, rule, line, **_tool(record))]
    if kind == "step_finish":
        part = object_field(record, "part")
        reason = text_field(part, "reason")
        message = text_field(part, "messageID")
        reported = call_usage(source, f"{rule} tokens", line, message, part, None, record.get("timestamp"))
        events += [reported] if reported else []
        if reason == TOOL_CALLS:
            return [*events, event("generating", source, f"{rule} reason={reason}", line)]
        state.turn_started = False
        return [*events, event("turn_completed", source, f"{rule} reason={reason}", line)]
    if kind == "error":
        state.turn_started = False
        message = api_error_message(object_field(object_field(record, "error"), "data")) or text_field(
            object_field(record, "error"), "name"
        )
        return [*events, event("error", source, rule, line, message=message)]
    return events


def _session(source: OutputSource, record: dict[str, Any], line: str, state: HeadlessState) -> list[ProviderEvent]:
    """The first record naming a session starts it (a resumed run names the one it resumed)."""
    session_id = text_field(record, "sessionID")
    if not session_id or session_id == state.session_id:
        return []
    state.session_id = session_id
    return [event("session_started", source, "sessionID", line, session_id=session_id)]


def _tool(record: dict[str, Any]) -> dict[str, Any]:
    """A tool part's name, input and outcome as the event's data (a rejected call ends in `error`)."""
    part = object_field(record, "part")
    if text_field(part, "type") != "tool":
        return {}
    state = object_field(part, "state")
    data = {"tool": text_field(part, "tool"), "input": state.get("input"), "status": text_field(state, "status")}
    if text_field(state, "error"):
        data["error"] = text_field(state, "error")
    return {"data": data}
