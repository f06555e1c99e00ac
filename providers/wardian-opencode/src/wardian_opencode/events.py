"""OpenCode's own event stream (`GET /event` of the TUI's server, one SSE event per call): the
structured account of the agent's session (OpenCode 1.18.33).

Each event is `{"type": …, "properties": {…}}`. Read here: `session.created` (the session id,
`ses_…`; a child session of a subagent names its `parentID` and is not the agent's),
`session.status` (`busy` / `idle` / `retry`: a usage limit it retries by itself, limits.py) and
`session.idle`, `permission.asked` (the tool, its patterns, the request id) and
`permission.replied` (`once`, `always` or `reject`), `session.error` (an API error, or the limit
it gave up on after its retries; an abort by Esc is no error), tool parts of
`message.part.updated`, and assistant messages' usage in `message.updated` (usage.py). Events of
other sessions (another TUI tab, a subagent) are ignored.
"""

from dataclasses import dataclass, field
from typing import Any

from wardian_core.parsing.events import event
from wardian_core.parsing.jsonl import api_error_message, json_object, object_field, text_field
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent
from wardian_opencode import limits
from wardian_opencode.permissions import PermissionLedger
from wardian_opencode.profile import PERMISSION_DIALOG
from wardian_opencode.usage import message_usage

# The error OpenCode records when a person interrupts a turn (Esc): the turn ends, nothing failed.
ABORTED = "MessageAbortedError"
ACCEPTING_REPLIES = ("once", "always")


@dataclass
class EventsState:
    session_id: str | None = None
    busy: bool = False
    # The user messages seen: each is reported once, however often it is updated.
    user_messages: set[str] = field(default_factory=set)
    # Shared with the screen's panel fallback (permissions.py).
    permissions: PermissionLedger = field(default_factory=PermissionLedger)
    # When a limit's "try again in …" counts from, where the answer's own date is not told.
    clock: limits.Clock = limits.now


def parse_event(known_session: str | None, source: OutputSource, data: bytes, state: EventsState) -> ParseResult:
    return ParseResult(events=_events(known_session, source, data, state))


def _events(known_session: str | None, source: OutputSource, data: bytes, state: EventsState) -> list[ProviderEvent]:
    record = json_object(data)
    if record is None:
        return []
    kind = text_field(record, "type") or ""
    properties = object_field(record, "properties")
    line = data.decode("utf-8", "replace")
    state.session_id = state.session_id or known_session
    if kind == "session.created":
        return _created(source, properties, line, state)
    # A part or a message names its session inside itself; the rest name it at the top.
    session = (
        text_field(properties, "sessionID")
        or text_field(object_field(properties, "part"), "sessionID")
        or text_field(object_field(properties, "info"), "sessionID")
    )
    if session is None or session != state.session_id:
        return []
    handler = HANDLERS.get(kind)
    return handler(source, properties, line, state) if handler else []


def _created(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    info = object_field(properties, "info")
    session = text_field(info, "id")
    if session is None or state.session_id is not None or text_field(info, "parentID"):
        return []
    state.session_id = session
    return [event("session_started", source, "session.created", line, session_id=session)]


def _status(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    status = text_field(object_field(properties, "status"), "type")
    rule = f"session.status {status}"
    if status == "busy" and not state.busy:
        state.busy = True
        return [event("turn_started", source, rule, line)]
    if status == "idle":
        return _turn_end(source, rule, line, state)
    if status == "retry":
        # Still in its turn (a host that came back mid-retry must not take the next busy for a new one).
        state.busy = True
        retrying = limits.retrying(source, object_field(properties, "status"), line, state.clock)
        return [retrying] if retrying else []
    return []


def _message(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    """An assistant message's usage once its call ended; a user message new to a busy session: a
    prompt typed during the turn, which 1.18.33 posts at once and runs after it, with no `busy` of
    its own. What `wardian send` confirms it by."""
    info = object_field(properties, "info")
    reported = message_usage(source, info, line)
    if reported is not None:
        return [reported]
    message = text_field(info, "id")
    if text_field(info, "role") != "user" or message is None or message in state.user_messages:
        return []
    state.user_messages.add(message)
    # In an idle session the `busy` that follows starts the turn.
    return [event("turn_started", source, "message.updated user", line)] if state.busy else []


def _idle(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    return _turn_end(source, "session.idle", line, state)


def _turn_end(source: OutputSource, rule: str, line: str, state: EventsState) -> list[ProviderEvent]:
    """`session.status idle` and `session.idle` both end a turn: the first one read does."""
    if not state.busy:
        return []
    state.busy = False
    return [event("turn_completed", source, rule, line)]


def _asked(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    request = text_field(properties, "id")
    state.permissions.asked(request)
    tool = text_field(properties, "permission") or "tool"
    patterns = [p for p in properties.get("patterns") or [] if isinstance(p, str)]
    shown = " ".join(patterns) or tool
    data = {"tool": tool, "patterns": patterns, "request_id": request}
    return [
        event(
            "approval_requested",
            source,
            "permission.asked",
            shown,
            message=f"OpenCode asks to run {tool}: {shown}",
            reason="tool",
            dialog=PERMISSION_DIALOG,
            data=data,
        )
    ]


def _replied(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    state.permissions.replied(text_field(properties, "requestID"))
    reply = text_field(properties, "reply")
    answer = "accepted" if reply in ACCEPTING_REPLIES else "rejected"
    return [event("approval_resolved", source, f"permission.replied {reply}", line, answer=answer)]


def _error(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    error = object_field(properties, "error")
    if text_field(error, "name") == ABORTED:
        return []  # the turn's end follows as session.idle
    # The session.status idle that follows belongs to this failed turn: it is no turn_completed.
    state.busy = False
    reached = limits.gave_up(source, error, line, state.clock)
    if reached is not None:
        return [reached]
    message = api_error_message(object_field(error, "data")) or text_field(error, "name")
    return [event("error", source, "session.error", line, message=message)]


def _part(source: OutputSource, properties: dict[str, Any], line: str, state: EventsState) -> list[ProviderEvent]:
    part = object_field(properties, "part")
    if text_field(part, "type") != "tool" or not state.busy:
        return []
    tool_state = object_field(part, "state")
    status = text_field(tool_state, "status")
    if status not in ("running", "completed", "error"):
        return []
    data = {"tool": text_field(part, "tool"), "input": tool_state.get("input"), "status": status}
    return [event("generating", source, f"message.part.updated tool {status}", line, data=data)]


HANDLERS = {
    "session.status": _status,
    "session.idle": _idle,
    "permission.asked": _asked,
    "permission.replied": _replied,
    "session.error": _error,
    "message.part.updated": _part,
    "message.updated": _message,
}
