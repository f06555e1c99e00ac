"""The JSONL Wardian's Codex hooks append (`codex-hooks`): what Codex says of its own session.

Seen on 0.169.0 (interactive): nothing at launch; with the first prompt `SessionStart` then
`UserPromptSubmit` (the rollout's `task_started` is written ~40 ms before them); per command
`PreToolUse`, then `PermissionRequest` when it needs approval (about 0.8 s before the dialog
is drawn and takes keys), `PostToolUse` once it ran; `Stop` as the turn ends (within a
millisecond of the rollout's `task_complete`); none for a turn that fails with an API error
or is aborted (the rollout says those). Whichever of the two structured sources reports a
turn's start or end first decides; the other's event then changes nothing. Each payload but
SessionStart names its turn (`turn_id`), as the rollout's lines do: once one source ended a
turn, the other's late news of it (a tool's run, read after the Stop) does not reopen it.
"""

from pathlib import Path
from typing import Any

from wardian_core.provider import ParseResult
from wardian_core.provider.parsing import (
    HookLogParser,
    in_turn,
    newest_hook,
    text_field,
    tool_data,
    tool_summary,
)

# Events after which an earlier PermissionRequest is no longer waiting.
_ANSWERED_BY = ("PostToolUse", "UserPromptSubmit", "Stop", "SessionEnd")


class CodexHooks(HookLogParser):
    """Turns, tools and the thread, as Wardian's Codex hooks report them. A SessionStart (re)names
    the thread whose payloads count (a new thread in the same TUI); turns are the host's to track,
    so the parser rests whenever it holds no thread but the host's."""

    def read(self, record: dict[str, Any], name: str) -> ParseResult:
        """One payload's events, each of the turn it names (the rollout tells the same turn)."""
        return in_turn(self._hook_events(record, name), text_field(record, "turn_id"))

    def _hook_events(self, record: dict[str, Any], name: str) -> ParseResult:
        session_id = text_field(record, "session_id")
        rule = f"hook {name}"
        if name == "SessionStart":
            self.session_id = session_id
            if not session_id:
                return ParseResult()
            line = f"{name} source={text_field(record, 'source') or ''} {session_id}"
            # A new thread has a rollout of its own: the host asks for the sources again.
            changed = session_id != self.known_session
            return ParseResult(
                events=[self.event("session_started", rule, line, session_id=session_id)], sources_changed=changed
            )
        if self.another_session(record):
            return ParseResult()  # another thread's payload
        if name == "UserPromptSubmit":
            prompt = text_field(record, "prompt") or ""
            return ParseResult(events=[self.event("turn_started", rule, f"{name} {prompt}")])
        if name in ("PreToolUse", "PostToolUse"):
            summary = f"{name} {tool_summary(record)}"
            return ParseResult(events=[self.event("generating", rule, summary, data=tool_data(record))])
        if name == "PermissionRequest":
            # Codex draws its dialog (and takes keys) later: the screen reports it, with this request.
            return ParseResult(want_screen=True)
        if name == "Stop":
            last = text_field(record, "last_assistant_message")
            return ParseResult(events=[self.event("turn_completed", rule, f"{name} {last or ''}", message=last)])
        if name == "SessionEnd":
            return ParseResult(events=[self.event("session_ended", rule, f"{name} reason={record.get('reason')}")])
        return ParseResult()


def pending_permission(log_file: Path | None) -> dict[str, Any] | None:
    """The newest PermissionRequest in the hooks log not yet followed by its tool's run or the
    turn's end; None without one (or without a log: a replay, hooks turned off)."""
    found = newest_hook(log_file, ("PermissionRequest", *_ANSWERED_BY))
    return found[0] if found is not None and found[1] == "PermissionRequest" else None
