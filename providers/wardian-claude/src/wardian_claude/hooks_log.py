"""The JSONL our hooks append (`claude-hooks`): Claude's own structured signal.

One payload per line (the shared fixtures' `time<TAB>event<TAB>json` logs are read
too). Payloads of another session are ignored once the agent's session id is known.
"""

from pathlib import Path
from typing import Any

from wardian_claude.limits import hook_limit
from wardian_core.provider import EventKind, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import (
    HookLogParser,
    event,
    newest_hook,
    text_field,
    tool_data,
    tool_summary,
)

# The dialog of a tool approval; its keys are in profile.py.
TOOL_DIALOG = "tool"
# Payloads that begin a turn: a PermissionRequest before them asked in another turn.
_TURN_BEGUN_BY = ("UserPromptSubmit", "SessionStart")


class ClaudeHooks(HookLogParser):
    """Turns, tools, approvals and the session, as Claude's hooks report them."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        # A PermissionRequest not yet followed by its tool's result or the turn's end.
        self.approval_pending = False

    def rests(self) -> bool:
        """No dialog awaits its tool and no session but the host's: a log of weeks of turns is
        replayed by a new host from the last line after which this holds."""
        return not self.approval_pending and super().rests()

    def read(self, record: dict[str, Any], name: str) -> ParseResult:
        if name != "SessionStart" and self.another_session(record):
            return ParseResult()  # another session's payload
        session_id = text_field(record, "session_id")
        rule = f"hook {name}"
        if name == "SessionStart":
            self.session_id = session_id or self.expected_session()
            line = f"{name} source={record.get('source')} {session_id}"
            # Ready needs the prompt on screen as well (tui.py): look at it now.
            return ParseResult(
                events=[self.event("session_started", rule, line, session_id=session_id)] if session_id else [],
                want_screen=True,
            )
        if name == "UserPromptSubmit":
            self.approval_pending = False
            return ParseResult(
                events=[self.event("turn_started", rule, f"{name} {text_field(record, 'prompt') or ''}")]
            )
        if name == "PreToolUse":
            return ParseResult(events=[_tool_event("generating", self.source, rule, name, record)])
        if name == "PermissionRequest":
            self.approval_pending = True
            summary = tool_summary(record)
            requested = self.event(
                "approval_requested",
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
            if self.approval_pending:
                # The tool ran (or failed) after its dialog: the dialog was accepted.
                self.approval_pending = False
                after = f"{rule} after PermissionRequest"
                events.append(_tool_event("approval_resolved", self.source, after, name, record, answer="accepted"))
            return ParseResult(events=[*events, _tool_event("generating", self.source, rule, name, record)])
        return self._turn_end(record, name, rule)

    def _turn_end(self, record: dict[str, Any], name: str, rule: str) -> ParseResult:
        if name == "Stop":
            self.approval_pending = False
            last = text_field(record, "last_assistant_message") or ""
            return ParseResult(events=[self.event("turn_completed", rule, f"{name} {last}", message=last or None)])
        if name == "StopFailure":
            self.approval_pending = False
            # A usage limit cut the turn (`error: "rate_limit"`): the CLI waits, no failure.
            limited = hook_limit(self.source, rule, record)
            if limited is not None:
                return limited
            # `error` is often just "unknown" (2.1.197); the message says what the API answered.
            reason = text_field(record, "last_assistant_message") or text_field(record, "error")
            message = reason or "the turn ended with an API error"
            return ParseResult(events=[self.event("error", rule, f"{name} {reason or ''}", message=message)])
        if name == "SessionEnd":
            line = f"{name} reason={text_field(record, 'reason') or ''}"
            return ParseResult(events=[self.event("session_ended", rule, line)])
        return ParseResult()  # Notification and others: kept in the file, no status of their own


def _tool_event(
    kind: EventKind, source: OutputSource, rule: str, name: str, record: dict[str, Any], **fields: Any
) -> ProviderEvent:
    return event(kind, source, rule, f"{name} {tool_summary(record)}", data=tool_data(record), **fields)


def permission_asked_this_turn(log_file: Path | None) -> bool:
    """Whether a PermissionRequest hook fired since the turn began: then the hooks tell this
    turn's dialogs, and one still on screen is theirs (answered, its repaint not yet drawn).
    False without a log (a replay, hooks turned off), where the screen alone tells dialogs."""
    found = newest_hook(log_file, ("PermissionRequest", *_TURN_BEGUN_BY))
    return found is not None and found[1] == "PermissionRequest"
