"""Codex output → provider events. One parser per source; never raises on bad input.

- `pty` (`tui`): the TUI's screen: readiness, the trust dialog, the command approval dialog.
- `codex-hooks` (`hooks_log`): the payloads of Wardian's hooks: turns, tools, the thread.
- `thread-locks`, `sessions` (`sessions`): the files that tell the thread id, then that its
  rollout exists.
- `rollout` / `rollout-resumed`: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl`, the
  interactive session's own log: turns, command output, errors. A resumed thread's file is
  followed from its end (its history is no news).
- `headless`: `codex exec --json` (thread.started, turn.started, item.*, turn.completed,
  error, turn.failed). Its turn.completed carries no text: the turn's last `agent_message`
  item is kept and becomes the turn_completed's message (a workflow node's output).

Commentary (`agent_message`) is never a status change.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wardian_codex import hooks, hooks_log, sessions, tui
from wardian_codex.profile import EXEC_DIALOG
from wardian_core.parsing.events import event
from wardian_core.parsing.jsonl import api_error_message, json_object, object_field, text_field
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext

HEADLESS_SOURCE = "headless"
EXEC_EVENTS = ("exec_command_begin", "exec_command_start", "exec_command_output_delta", "exec_command_end")


@dataclass
class HeadlessState:
    """`codex exec --json`: the text of the turn's newest agent message, until the turn ends."""

    reply: str | None = None


def state_class(source: OutputSource) -> type | None:
    if source.name == HEADLESS_SOURCE:
        return HeadlessState
    if source.format == "chunks":
        return tui.TerminalState
    if source.name == sessions.LOCKS_SOURCE:
        return sessions.LockState
    if source.name == hooks.HOOKS_SOURCE:
        return hooks_log.HookState
    return None  # the rollout's lines are read one by one, without memory


def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: Any) -> ParseResult:
    try:
        if isinstance(state, tui.TerminalState):
            return tui.watch_stream(data, state)
        if isinstance(state, sessions.LockState):
            return sessions.lock_appeared(ctx, source, data, state)
        if isinstance(state, hooks_log.HookState):
            return hooks_log.parse_hook(ctx.provider_session_id, source, data, state)
        if source.name == sessions.SESSIONS_SOURCE:
            return sessions.rollout_appeared()
        if isinstance(state, HeadlessState):
            return parse_headless(source, data, state)
        return parse_rollout(source, data)
    except Exception:  # noqa: BLE001 - a parser must never take an agent down with it
        return ParseResult()


def _hooks_file(ctx: SpawnContext) -> Path | None:
    return hooks.hooks_file(ctx) if ctx.mode == "interactive" else None


def quiet(ctx: SpawnContext, source: OutputSource, state: Any) -> ParseResult:
    if not isinstance(state, tui.TerminalState):
        return ParseResult()
    return tui.settle_passed(source, state, _hooks_file(ctx))


def screen(ctx: SpawnContext, source: OutputSource, snapshot: ScreenSnapshot, state: Any) -> ParseResult:
    if not isinstance(state, tui.TerminalState):
        return ParseResult()
    try:
        return tui.read_screen(source, snapshot, state, _hooks_file(ctx))
    except Exception:  # noqa: BLE001 - as in parse
        return ParseResult()


def parse_headless(source: OutputSource, data: bytes, state: HeadlessState) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    line = data.decode("utf-8", "replace")
    kind = record.get("type")
    rule = f"type={kind}"
    thread_id = text_field(record, "thread_id")
    if kind == "thread.started" and thread_id:
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
        return ParseResult(events=[event("turn_completed", source, rule, line, message=reply)])
    if kind == "error":
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(record))])
    if kind == "turn.failed":
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(record.get("error")))])
    return ParseResult()


def parse_rollout(source: OutputSource, data: bytes) -> ParseResult:
    record = json_object(data)
    if record is None:
        return ParseResult()
    payload = object_field(record, "payload")
    record_type, payload_type = record.get("type"), payload.get("type")
    rule = f"{record_type}/{payload_type}" if payload_type else str(record_type)
    # The payload is what says why; the envelope (timestamp, ordinal) would fill the excerpt.
    line = (
        json.dumps(payload, separators=(",", ":"), ensure_ascii=False) if payload else data.decode("utf-8", "replace")
    )
    if record_type == "session_meta":
        session_id = text_field(payload, "id") or text_field(payload, "session_id")
        if session_id:
            return ParseResult(events=[event("session_started", source, rule, line, session_id=session_id)])
        return ParseResult()
    if record_type == "response_item" and payload_type == "function_call_output":
        return ParseResult(events=[event("generating", source, rule, line)])
    # An escalated `function_call` is no status change here: Codex 0.169.0 logs it before its
    # dialog is drawn, and a key sent then lands in the composer. The dialog on screen is the
    # approval (tui), with the command it shows as its evidence.
    if record_type != "event_msg":
        return ParseResult()
    if payload_type == "task_started":
        return ParseResult(events=[event("turn_started", source, rule, line)])
    if payload_type == "exec_approval_request":  # not written by 0.169.0; kept for other versions
        command = payload.get("command")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        requested = event(
            "approval_requested",
            source,
            rule,
            str(command or line),
            message=text_field(payload, "reason"),
            reason="tool",
            dialog=EXEC_DIALOG,
        )
        return ParseResult(events=[requested])
    if payload_type in EXEC_EVENTS:
        return ParseResult(events=[event("generating", source, rule, line)])
    if payload_type == "item_completed":
        if object_field(payload, "item").get("type") == "CommandExecution":
            return ParseResult(events=[event("generating", source, f"{rule} CommandExecution", line)])
        return ParseResult()
    if payload_type == "task_complete":
        if payload.get("error"):
            message = api_error_message(payload["error"])
            return ParseResult(events=[event("error", source, f"{rule} with error", line, message=message)])
        return ParseResult(events=[event("turn_completed", source, rule, line)])
    if payload_type == "turn_aborted":
        return ParseResult(events=[event("turn_completed", source, rule, line, message=text_field(payload, "reason"))])
    if payload_type == "error":  # stream_error is a retry notice, not a failure
        return ParseResult(events=[event("error", source, rule, line, message=api_error_message(payload))])
    return ParseResult()
