"""The JSONL Wardian's Gemini hooks append (`gemini-hooks`): Gemini CLI's own account of its session.

Seen on 0.61.0 (interactive): `SessionStart` (source `startup` / `resume`) as the TUI starts;
per prompt `BeforeAgent`, then per tool `BeforeTool`, `Notification` of type `ToolPermission`
when it asks for approval (its details name the command), `AfterTool` once the tool ran, and
`AfterAgent` as the turn ends — but not when Esc cancels it: then an AfterTool saying the tool
was cancelled, if one ran (cancel.py), else nothing; `SessionEnd` on exit — also when Gemini restarts itself in the
same terminal to apply a trust answer (reason `exit`, then a new `SessionStart`) and on `/clear`:
so it ends nothing here, the terminal's process ending does.
"""

from typing import Any

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import HookLogParser, in_turn, object_field, text_field, tool_data, tool_summary
from wardian_gemini import cancel
from wardian_gemini.profile import TOOL_DIALOG


class GeminiHooks(HookLogParser):
    """Turns, tools, approvals and the session, as Wardian's Gemini hooks report them."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        # A ToolPermission notification not yet followed by its tool's run or the turn's end.
        self.approval_pending = False
        # The turn under way, named by its BeforeAgent's time (Gemini's hooks carry no turn id):
        # a tool's AfterTool after the screen ended its turn (cancel.py) is then known as late.
        self.turn: str | None = None

    def rests(self) -> bool:
        """No dialog awaits its tool and no session but the host's (`ParseResult.at_rest`)."""
        return not self.approval_pending and super().rests()

    def read(self, record: dict[str, Any], name: str) -> ParseResult:
        session_id = text_field(record, "session_id")
        rule = f"hook {name}"
        if name == "SessionStart":
            self.session_id = session_id or self.known_session
            line = f"{name} source={text_field(record, 'source') or ''} {session_id or ''}"
            started = [self.event("session_started", rule, line, session_id=session_id)] if session_id else []
            # Ready needs the prompt on screen as well (tui.py): look at it now.
            return ParseResult(events=started, want_screen=True)
        if self.another_session(record):
            return ParseResult()  # another session's payload
        if name == "BeforeAgent":
            self.turn = text_field(record, "timestamp")
        return in_turn(self._turn_events(record, name, rule), self.turn)

    def _turn_events(self, record: dict[str, Any], name: str, rule: str) -> ParseResult:
        """What a hook of the session's turns says."""
        if name == "BeforeAgent":
            self.approval_pending = False
            prompt = text_field(record, "prompt") or ""
            return ParseResult(events=[self.event("turn_started", rule, f"{name} {prompt}")])
        if name == "Notification" and text_field(record, "notification_type") == "ToolPermission":
            return ParseResult(events=[self._approval_requested(rule, record)])
        if name in ("BeforeTool", "AfterTool"):
            events = []
            if name == "AfterTool" and self.approval_pending:
                self.approval_pending = False  # the tool ran after its dialog: the dialog was accepted
                events.append(self.event("approval_resolved", f"{rule} after ToolPermission", name, answer="accepted"))
            summary = f"{name} {tool_summary(record)}"
            if name == "AfterTool" and cancel.cancelled_tool(record):
                # Esc cancelled the turn under its tool: no AfterAgent follows (0.61.0).
                done = self.event("turn_completed", f"{rule} cancelled", summary, message="cancelled")
                return ParseResult(events=[*events, done])
            return ParseResult(events=[*events, self.event("generating", rule, summary, data=tool_data(record))])
        if name == "AfterAgent":
            self.approval_pending = False
            reply = text_field(record, "prompt_response")
            return ParseResult(events=[self.event("turn_completed", rule, f"{name} {reply or ''}", message=reply)])
        return ParseResult()

    def _approval_requested(self, rule: str, record: dict[str, Any]) -> ProviderEvent:
        self.approval_pending = True
        details = object_field(record, "details")
        command = text_field(details, "command")
        message = text_field(record, "message") or "Gemini asks before running a tool"
        data = {key: details[key] for key in ("type", "title", "command", "rootCommand") if key in details}
        return self.event(
            "approval_requested",
            f"{rule} ToolPermission",
            command or message,
            message=message,
            data=data,
            reason="tool",
            dialog=TOOL_DIALOG,
        )
