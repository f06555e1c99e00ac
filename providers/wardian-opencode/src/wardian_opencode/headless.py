"""OpenCode headless output → provider events: one stdout line of `opencode run --format json`
(OpenCode 1.18.33) per call.

Every record names its session (`sessionID`, `ses_…`). A turn is one or more steps: `step_start`,
then `text` (the whole text of a part, no deltas) and `tool_use` (a tool's final state), then
`step_finish` whose `reason` says whether the model goes on (`tool-calls`: another step follows)
or is done (`stop`), with the step's usage (usage.py). An API error is an `error` record. `run`
never waits for a person: a permission set to `ask` is rejected on the spot (the `tool_use` ends
in `error`).
"""

from typing import Any

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import JsonLinesParser, api_error_message, object_field, text_field
from wardian_opencode.usage import call_usage

# The step that ends with this reason is followed by another: the turn goes on.
TOOL_CALLS = "tool-calls"


class OpenCodeHeadless(JsonLinesParser):
    """A run's stdout: its session, its turn's steps, tools and usage."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.session_id: str | None = None
        self.turn_started = False

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        return ParseResult(events=self._events(record, line))

    def _events(self, record: dict[str, Any], line: str) -> list[ProviderEvent]:
        kind = text_field(record, "type")
        rule = f"type={kind}"
        events = self._session(record, line)
        if kind == "step_start" and not self.turn_started:
            self.turn_started = True
            return [*events, self.event("turn_started", rule, line)]
        if kind in ("step_start", "text", "tool_use"):
            return [*events, self.event("generating", rule, line, **_tool(record))]
        if kind == "step_finish":
            part = object_field(record, "part")
            reason = text_field(part, "reason")
            message = text_field(part, "messageID")
            reported = call_usage(self.source, f"{rule} tokens", line, message, part, None, record.get("timestamp"))
            events += [reported] if reported else []
            if reason == TOOL_CALLS:
                return [*events, self.event("generating", f"{rule} reason={reason}", line)]
            self.turn_started = False
            return [*events, self.event("turn_completed", f"{rule} reason={reason}", line)]
        if kind == "error":
            self.turn_started = False
            error = object_field(record, "error")
            message = api_error_message(object_field(error, "data")) or text_field(error, "name")
            return [*events, self.event("error", rule, line, message=message)]
        return events

    def _session(self, record: dict[str, Any], line: str) -> list[ProviderEvent]:
        """The first record naming a session starts it (a resumed run names the one it resumed)."""
        session_id = text_field(record, "sessionID")
        if not session_id or session_id == self.session_id:
            return []
        self.session_id = session_id
        return [self.event("session_started", "sessionID", line, session_id=session_id)]


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
