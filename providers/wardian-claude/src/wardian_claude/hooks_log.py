"""The JSONL our hooks append (`claude-hooks`): Claude's own structured signal.

One payload per line (the shared fixtures' `time<TAB>event<TAB>json` logs are read
too). Payloads of another session are ignored once the agent's session id is known.
"""

from dataclasses import dataclass
from typing import Any

from wardian_claude.limits import hook_limit
from wardian_core.parsing.line_parsers import holds_only_the_known_session
from wardian_core.provider import EventKind, OutputSource, ParseResult, ProviderEvent
from wardian_core.provider.parsing import event, hook_payload, text_field, tool_data, tool_summary

# The dialog of a tool approval; its keys are in profile.py.
TOOL_DIALOG = "tool"


@dataclass
class HookState:
    session_id: str | None = None
    # A PermissionRequest not yet followed by its tool's result or the turn's end.
    approval_pending: bool = False

    def at_rest(self, known_session: str | None) -> bool:
        """No dialog awaits its tool and no session but the host's: a log of weeks of turns is
        replayed by a new host from the last line after which this holds."""
        return not self.approval_pending and holds_only_the_known_session(self.session_id, known_session)


def parse_hook(ctx_session_id: str | None, source: OutputSource, data: bytes, state: HookState) -> ParseResult:
    payload = hook_payload(data)
    if payload is None:
        return ParseResult()
    record, name = payload
    session_id = text_field(record, "session_id")
    expected = state.session_id or ctx_session_id
    if expected and session_id and session_id != expected and name != "SessionStart":
        return ParseResult()  # another session's payload
    rule = f"hook {name}"
    if name == "SessionStart":
        state.session_id = session_id or expected
        line = f"{name} source={record.get('source')} {session_id}"
        # Ready needs the prompt on screen as well (tui.py): look at it now.
        return ParseResult(
            events=[event("session_started", source, rule, line, session_id=session_id)] if session_id else [],
            want_screen=True,
        )
    if name == "UserPromptSubmit":
        state.approval_pending = False
        return ParseResult(events=[event("turn_started", source, rule, f"{name} {text_field(record, 'prompt') or ''}")])
    if name == "PreToolUse":
        return ParseResult(events=[_tool_event("generating", source, rule, name, record)])
    if name == "PermissionRequest":
        state.approval_pending = True
        summary = tool_summary(record)
        requested = event(
            "approval_requested",
            source,
            rule,
            f"{name} {summary}",
            message=summary,
            data=tool_data(record),
            reason="tool",
            dialog=TOOL_DIALOG,
        )
        return ParseResult(events=[requested])
    if name in ("PostToolUse", "PostToolUseFailure"):
        events = []
        if state.approval_pending:
            # The tool ran (or failed) after its dialog: the dialog was accepted.
            state.approval_pending = False
            rule_after = f"{rule} after PermissionRequest"
            events.append(_tool_event("approval_resolved", source, rule_after, name, record, answer="accepted"))
        return ParseResult(events=[*events, _tool_event("generating", source, rule, name, record)])
    if name == "Stop":
        state.approval_pending = False
        last = text_field(record, "last_assistant_message") or ""
        return ParseResult(events=[event("turn_completed", source, rule, f"{name} {last}", message=last or None)])
    if name == "StopFailure":
        state.approval_pending = False
        # A usage limit cut the turn (`error: "rate_limit"`): the CLI waits, no failure.
        limited = hook_limit(source, rule, record)
        if limited is not None:
            return limited
        # `error` is often just "unknown" (2.1.197); the message says what the API answered.
        reason = text_field(record, "last_assistant_message") or text_field(record, "error")
        message = reason or "the turn ended with an API error"
        return ParseResult(events=[event("error", source, rule, f"{name} {reason or ''}", message=message)])
    if name == "SessionEnd":
        line = f"{name} reason={text_field(record, 'reason') or ''}"
        return ParseResult(events=[event("session_ended", source, rule, line)])
    return ParseResult()  # Notification and others: kept in the file, no status of their own


def _tool_event(
    kind: EventKind, source: OutputSource, rule: str, name: str, record: dict[str, Any], **fields: Any
) -> ProviderEvent:
    return event(kind, source, rule, f"{name} {tool_summary(record)}", data=tool_data(record), **fields)
