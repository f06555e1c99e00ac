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

from typing import Any

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import EventStreamParser, api_error_message, object_field, text_field
from wardian_opencode import limits
from wardian_opencode.permissions import PermissionLedger
from wardian_opencode.profile import PERMISSION_DIALOG
from wardian_opencode.usage import message_usage

# The error OpenCode records when a person interrupts a turn (Esc): the turn ends, nothing failed.
ABORTED = "MessageAbortedError"
ACCEPTING_REPLIES = ("once", "always")


class OpenCodeEvents(EventStreamParser):
    """The stream's events of the agent's session, turn by turn."""

    def __init__(
        self,
        source: OutputSource,
        ctx: SpawnContext | None = None,
        permissions: PermissionLedger | None = None,
        clock: limits.Clock = limits.now,
    ) -> None:
        super().__init__(source, ctx)
        self.session_id: str | None = None
        self.busy = False
        # The user messages seen: each is reported once, however often it is updated.
        self.user_messages: set[str] = set()
        # Shared with the screen's panel fallback (permissions.py).
        self.permissions = permissions if permissions is not None else PermissionLedger()
        # When a limit's "try again in …" counts from, where the answer's own date is not told.
        self.clock = clock

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        return ParseResult(events=self._events(record, line))

    def _events(self, record: dict[str, Any], line: str) -> list[ProviderEvent]:
        kind = text_field(record, "type") or ""
        properties = object_field(record, "properties")
        self.session_id = self.session_id or self.known_session
        if kind == "session.created":
            return self._created(properties, line)
        # A part or a message names its session inside itself; the rest name it at the top.
        session = (
            text_field(properties, "sessionID")
            or text_field(object_field(properties, "part"), "sessionID")
            or text_field(object_field(properties, "info"), "sessionID")
        )
        if session is None or session != self.session_id:
            return []
        handler = HANDLERS.get(kind)
        return getattr(self, handler)(properties, line) if handler else []

    def _created(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        info = object_field(properties, "info")
        session = text_field(info, "id")
        if session is None or self.session_id is not None or text_field(info, "parentID"):
            return []
        self.session_id = session
        return [self.event("session_started", "session.created", line, session_id=session)]

    def _status(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        status = text_field(object_field(properties, "status"), "type")
        rule = f"session.status {status}"
        if status == "busy" and not self.busy:
            self.busy = True
            return [self.event("turn_started", rule, line)]
        if status == "idle":
            return self._turn_end(rule, line)
        if status == "retry":
            # Still in its turn (a host that came back mid-retry must not take the next busy for a new one).
            self.busy = True
            retrying = limits.retrying(self.source, object_field(properties, "status"), line, self.clock)
            return [retrying] if retrying else []
        return []

    def _message(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        """An assistant message's usage once its call ended; a user message new to a busy session: a
        prompt typed during the turn, which 1.18.33 posts at once and runs after it, with no `busy` of
        its own. What `wardian send` confirms it by."""
        info = object_field(properties, "info")
        reported = message_usage(self.source, info, line)
        if reported is not None:
            return [reported]
        message = text_field(info, "id")
        if text_field(info, "role") != "user" or message is None or message in self.user_messages:
            return []
        self.user_messages.add(message)
        # In an idle session the `busy` that follows starts the turn.
        return [self.event("turn_started", "message.updated user", line)] if self.busy else []

    def _idle(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        return self._turn_end("session.idle", line)

    def _turn_end(self, rule: str, line: str) -> list[ProviderEvent]:
        """`session.status idle` and `session.idle` both end a turn: the first one read does."""
        if not self.busy:
            return []
        self.busy = False
        return [self.event("turn_completed", rule, line)]

    def _asked(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        request = text_field(properties, "id")
        self.permissions.asked(request)
        tool = text_field(properties, "permission") or "tool"
        patterns = [p for p in properties.get("patterns") or [] if isinstance(p, str)]
        shown = " ".join(patterns) or tool
        data = {"tool": tool, "patterns": patterns, "request_id": request}
        return [
            self.event(
                "approval_requested",
                "permission.asked",
                shown,
                message=f"OpenCode asks to run {tool}: {shown}",
                reason="tool",
                dialog=PERMISSION_DIALOG,
                data=data,
            )
        ]

    def _replied(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        self.permissions.replied(text_field(properties, "requestID"))
        reply = text_field(properties, "reply")
        answer = "accepted" if reply in ACCEPTING_REPLIES else "rejected"
        return [self.event("approval_resolved", f"permission.replied {reply}", line, answer=answer)]

    def _error(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        error = object_field(properties, "error")
        if text_field(error, "name") == ABORTED:
            return []  # the turn's end follows as session.idle
        # The session.status idle that follows belongs to this failed turn: it is no turn_completed.
        self.busy = False
        reached = limits.gave_up(self.source, error, line, self.clock)
        if reached is not None:
            return [reached]
        message = api_error_message(object_field(error, "data")) or text_field(error, "name")
        return [self.event("error", "session.error", line, message=message)]

    def _part(self, properties: dict[str, Any], line: str) -> list[ProviderEvent]:
        part = object_field(properties, "part")
        if text_field(part, "type") != "tool" or not self.busy:
            return []
        tool_state = object_field(part, "state")
        status = text_field(tool_state, "status")
        if status not in ("running", "completed", "error"):
            return []
        data = {"tool": text_field(part, "tool"), "input": tool_state.get("input"), "status": status}
        return [self.event("generating", f"message.part.updated tool {status}", line, data=data)]


# The method that reads each kind of event of the agent's session.
HANDLERS = {
    "session.status": "_status",
    "session.idle": "_idle",
    "permission.asked": "_asked",
    "permission.replied": "_replied",
    "session.error": "_error",
    "message.part.updated": "_part",
    "message.updated": "_message",
}
