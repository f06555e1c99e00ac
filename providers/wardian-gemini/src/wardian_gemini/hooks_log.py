"""The JSONL Wardian's Gemini hooks append (`gemini-hooks`): Gemini CLI's own account of its session.

Seen on 0.61.0 (interactive): `SessionStart` (source `startup` / `resume`) as the TUI starts;
per prompt `BeforeAgent`, then per tool `BeforeTool`, `Notification` of type `ToolPermission`
when it asks for approval (its details name the command), `AfterTool` once the tool ran, and
`AfterAgent` as the turn ends; `SessionEnd` on exit — also when Gemini restarts itself in the
same terminal to apply a trust answer (reason `exit`, then a new `SessionStart`) and on `/clear`:
so it ends nothing here, the terminal's process ending does.
"""

from dataclasses import dataclass
from typing import Any

from wardian_core.parsing.events import event
from wardian_core.parsing.hook_payloads import hook_payload, tool_data, tool_summary
from wardian_core.parsing.jsonl import object_field, text_field
from wardian_core.parsing.line_parsers import holds_only_the_known_session
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent
from wardian_gemini.profile import TOOL_DIALOG


@dataclass
class HookState:
    session_id: str | None = None
    # A ToolPermission notification not yet followed by its tool's run or the turn's end.
    approval_pending: bool = False

    def at_rest(self, known_session: str | None) -> bool:
        """No dialog awaits its tool and no session but the host's (`ParseResult.at_rest`)."""
        return not self.approval_pending and holds_only_the_known_session(self.session_id, known_session)


def parse_hook(known_session: str | None, source: OutputSource, data: bytes, state: HookState) -> ParseResult:
    payload = hook_payload(data)
    if payload is None:
        return ParseResult()
    record, name = payload
    session_id = text_field(record, "session_id")
    rule = f"hook {name}"
    if name == "SessionStart":
        state.session_id = session_id or known_session
        line = f"{name} source={text_field(record, 'source') or ''} {session_id or ''}"
        started = [event("session_started", source, rule, line, session_id=session_id)] if session_id else []
        # Ready needs the prompt on screen as well (tui.py): look at it now.
        return ParseResult(events=started, want_screen=True)
    expected = state.session_id or known_session
    if expected and session_id and session_id != expected:
        return ParseResult()  # another session's payload
    if name == "BeforeAgent":
        state.approval_pending = False
        return ParseResult(events=[event("turn_started", source, rule, f"{name} {text_field(record, 'prompt') or ''}")])
    if name == "Notification" and text_field(record, "notification_type") == "ToolPermission":
        return ParseResult(events=[_approval_requested(source, rule, record, state)])
    if name in ("BeforeTool", "AfterTool"):
        events = []
        if name == "AfterTool" and state.approval_pending:
            state.approval_pending = False  # the tool ran after its dialog: the dialog was accepted
            events.append(event("approval_resolved", source, f"{rule} after ToolPermission", name, answer="accepted"))
        summary = f"{name} {tool_summary(record)}"
        return ParseResult(events=[*events, event("generating", source, rule, summary, data=tool_data(record))])
    if name == "AfterAgent":
        state.approval_pending = False
        reply = text_field(record, "prompt_response")
        return ParseResult(events=[event("turn_completed", source, rule, f"{name} {reply or ''}", message=reply)])
    return ParseResult()


def _approval_requested(source: OutputSource, rule: str, record: dict[str, Any], state: HookState) -> ProviderEvent:
    state.approval_pending = True
    details = object_field(record, "details")
    command = text_field(details, "command")
    message = text_field(record, "message") or "Gemini asks before running a tool"
    data = {key: details[key] for key in ("type", "title", "command", "rootCommand") if key in details}
    return event(
        "approval_requested",
        source,
        f"{rule} ToolPermission",
        command or message,
        message=message,
        data=data,
        reason="tool",
        dialog=TOOL_DIALOG,
    )
