"""Codex output → provider events. Three sources, one state machine each; never raises.

- `pty`: the TUI. Readiness (the `? for shortcuts` status line), the approval dialog
  (`Would you like to run the following command?`), the answer to it, and the thread id:
  Codex 0.169.0 creates `<CODEX_HOME>/thread-writer-locks/<thread-id>.lock` as the session
  starts, before any model turn, while its rollout file only appears with the first turn.
  Once the rollout file exists the parser says `session_started` again, so the host asks
  `approval_source` anew and follows the file.
- `rollout` / `rollout-resumed`: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl`,
  the interactive session's own log: turns, command output, errors (an escalated call there
  only names the command of the dialog, see parse_rollout).
  `rollout-resumed` is a file that already held earlier turns when it was opened: those
  lines are history, not news, and are skipped.
- `headless`: `codex exec --json` (thread.started, turn.started, item.*, turn.completed,
  error, turn.failed).

Commentary (`agent_message`) is never a status change.
"""

import codecs
import json
import re
from pathlib import Path
from typing import Any

from wardian_codex.profile import APPROVAL_SETTLE_SECONDS
from wardian_core.provider_models import (
    EventKind,
    Evidence,
    OutputSource,
    ParseResult,
    ProviderEvent,
    SpawnContext,
    excerpt,
)

READY_MARKER = "?forshortcuts"
APPROVAL_MARKER = "Wouldyouliketorunthefollowingcommand?"
# Shown in a git workspace Codex does not trust yet (0.169.0); Enter trusts and continues.
TRUST_MARKER = "Trustthisfolder?"
# What the TUI prints once the dialog was answered (0.169.0).
APPROVED_MARKER = "Youapprovedcodextorun"
REFUSED_MARKERS = ("Youcanceledtherequesttorun", "Youdidnotapprove", "Youdeniedcodex")
PTY_MARKERS = (READY_MARKER, APPROVAL_MARKER, TRUST_MARKER, APPROVED_MARKER, *REFUSED_MARKERS)
TAIL_CHARS = max(len(marker) for marker in PTY_MARKERS)
# How long, and how often, to look for the thread's lock file after the TUI is ready.
SESSION_LOOKUP_INTERVAL = 0.25
SESSION_LOOKUP_TRIES = 120
ROLLOUT_SOURCE = "rollout"
RESUMED_ROLLOUT_SOURCE = "rollout-resumed"

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")
_THREAD_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _object(value: Any) -> dict[str, Any]:
    """A JSON object field, or an empty one where the record has none (or another type)."""
    return value if isinstance(value, dict) else {}


def _event(kind: EventKind, source: OutputSource, rule: str, line: str, **fields: Any) -> ProviderEvent:
    return ProviderEvent(kind=kind, evidence=Evidence(source=source.name, rule=rule, line=excerpt(line)), **fields)


# -- where Codex keeps a session -------------------------------------------------------


def codex_home(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "habitat" / ".codex"


def thread_locks(home: Path) -> set[str]:
    """Thread ids with a writer lock in `home` (0.169.0: `thread-writer-locks/<id>.lock`)."""
    try:
        names = [entry.name for entry in (home / "thread-writer-locks").iterdir()]
    except OSError:
        return set()
    ids = {name.removesuffix(".lock") for name in names if name.endswith(".lock")}
    return {thread_id for thread_id in ids if _THREAD_ID.match(thread_id)}


def rollout_file(home: Path, thread_id: str) -> Path | None:
    """The thread's rollout, `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`; newest if several."""
    if not _THREAD_ID.match(thread_id):
        return None
    found = sorted((home / "sessions").glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    return found[-1] if found else None


# -- the TUI ----------------------------------------------------------------------------


def _screen_text(state: dict[str, Any], data: bytes) -> str:
    decoder = state.setdefault("decoder", codecs.getincrementaldecoder("utf-8")(errors="replace"))
    text = state.get("pending_escape", "") + decoder.decode(data)
    # An escape sequence cut by the read is kept for the next one.
    cut = text.rfind("\x1b", max(0, len(text) - 32))
    if cut >= 0 and not _ANSI.match(text, cut):
        state["pending_escape"], text = text[cut:], text[:cut]
    else:
        state["pending_escape"] = ""
    # TUIs draw spaces by moving the cursor: compare without whitespace.
    return "".join(_ANSI.sub("", text).split())


def _find_session(ctx: SpawnContext | None, source: OutputSource, state: dict[str, Any]) -> list[ProviderEvent]:
    if ctx is None:
        return []
    home = codex_home(ctx)
    events = []
    if not state.get("session_id"):
        new = sorted(thread_locks(home) - set(state.get("locks_at_open", ())))
        known = ctx.provider_session_id if ctx.session_mode == "resume" else None
        thread_id = known if known else (new[0] if new else None)
        if thread_id:
            state["session_id"] = thread_id
            rule = "resumed thread" if known else "thread-writer-locks/<thread-id>.lock appeared"
            events.append(_event("session_started", source, rule, thread_id, session_id=thread_id))
    thread_id = state.get("session_id")
    if thread_id and not state.get("rollout"):
        found = rollout_file(home, thread_id)
        if found is not None:
            state["rollout"] = str(found)
            # Said again so the host asks approval_source anew and follows the rollout.
            events.append(
                _event(
                    "session_started",
                    source,
                    "rollout file appeared",
                    found.name,
                    session_id=thread_id,
                    data={"rollout": str(found)},
                )
            )
    return events


def parse_terminal(ctx: SpawnContext | None, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    if "opened" not in state:
        state["opened"] = True
        state["locks_at_open"] = sorted(thread_locks(codex_home(ctx))) if ctx is not None else []
    events: list[ProviderEvent] = []
    call_again: float | None = None
    if data:
        text = state.get("tail", "") + _screen_text(state, data)
        consumed = 0
        for marker in _markers_in_order(text):
            name, position = marker
            consumed = max(consumed, position + len(name))
            if name == READY_MARKER and not state.get("ready"):
                state["ready"] = True
                events.append(_event("ready", source, "status line", "? for shortcuts"))
            elif name == READY_MARKER and state.get("trust_open"):
                # The status line is drawn again only once the trust dialog was answered (Enter).
                state["trust_open"] = False
                events.append(_event("turn_completed", source, "trust dialog answered", "? for shortcuts"))
            elif name == APPROVAL_MARKER and not state.get("dialog_open"):
                # Reported once it has been on screen long enough to take a key (profile.py).
                state["dialog_open"] = True
                state["dialog_pending"] = True
                call_again = APPROVAL_SETTLE_SECONDS
            elif name == TRUST_MARKER and not state.get("trust_asked"):
                state["trust_asked"] = state["trust_open"] = True
                events.append(
                    _event(
                        "approval_requested",
                        source,
                        "trust dialog",
                        "Trust this folder?",
                        message="Codex asks whether to trust the workspace",
                    )
                )
            elif name == APPROVED_MARKER and state.get("dialog_open"):
                state["dialog_open"] = state["dialog_pending"] = False
                # The person answered: the turn goes on (generating would not clear action_required).
                events.append(_event("turn_started", source, "approval accepted", "You approved codex to run"))
            elif name in REFUSED_MARKERS and state.get("dialog_open"):
                # The turn ends; its end is read from the rollout (turn_aborted).
                state["dialog_open"] = state["dialog_pending"] = False
        state["tail"] = text[max(consumed, len(text) - TAIL_CHARS) :]
    else:
        state["timer"] = False  # this empty call is the opening one or a delayed one
        if state.pop("dialog_pending", False) and state.get("dialog_open"):
            command = last_escalated_command(Path(state["rollout"])) if state.get("rollout") else None
            events.append(
                _event(
                    "approval_requested",
                    source,
                    "approval dialog",
                    command or "Would you like to run the following command?",
                    message=f"Codex asks to run: {command}" if command else None,
                )
            )
    if state.get("ready"):
        events += _find_session(ctx, source, state)
        looking = not state.get("session_id") and state.get("lookups", 0) < SESSION_LOOKUP_TRIES
        if looking and call_again is None and not state.get("timer"):
            state["lookups"] = state.get("lookups", 0) + 1
            call_again = SESSION_LOOKUP_INTERVAL
    if call_again is not None:
        state["timer"] = True
    return ParseResult(events=events, call_again_after=call_again)


def _markers_in_order(text: str) -> list[tuple[str, int]]:
    found = []
    for marker in PTY_MARKERS:
        start = 0
        while (position := text.find(marker, start)) >= 0:
            found.append((marker, position))
            start = position + len(marker)
    return sorted(found, key=lambda item: item[1])


# -- JSON lines -------------------------------------------------------------------------


def _record(data: bytes) -> tuple[dict[str, Any] | None, str]:
    line = data.decode("utf-8", "replace")
    try:
        record = json.loads(line)
    except ValueError:
        return None, line
    return (record if isinstance(record, dict) else None), line


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _error_message(value: Any) -> str | None:
    """Codex wraps the API's JSON error in a string; show the inner message when there is one."""
    message = value.get("message") if isinstance(value, dict) else value
    if not isinstance(message, str):
        return None
    try:
        inner = json.loads(message)
        if isinstance(inner, dict) and isinstance(inner.get("error"), dict):
            return _text(inner["error"].get("message")) or message
    except ValueError:
        pass
    return message


def parse_headless(source: OutputSource, data: bytes) -> ParseResult:
    record, line = _record(data)
    if record is None:
        return ParseResult()
    kind = record.get("type")
    item = _object(record.get("item"))
    rule = f"type={kind}"
    if kind == "thread.started" and _text(record.get("thread_id")):
        return ParseResult(events=[_event("session_started", source, rule, line, session_id=record["thread_id"])])
    if kind == "turn.started":
        return ParseResult(events=[_event("turn_started", source, rule, line)])
    if kind in ("item.started", "item.updated", "item.completed") and item.get("type") == "command_execution":
        return ParseResult(events=[_event("generating", source, f"{rule} command_execution", line)])
    if kind == "turn.completed":
        return ParseResult(events=[_event("turn_completed", source, rule, line)])
    if kind == "error":
        return ParseResult(events=[_event("error", source, rule, line, message=_error_message(record))])
    if kind == "turn.failed":
        return ParseResult(events=[_event("error", source, rule, line, message=_error_message(record.get("error")))])
    return ParseResult()


def _escalated_command(payload: dict[str, Any]) -> str | None:
    """The command of a function call that asks to leave the sandbox, else None."""
    try:
        arguments = json.loads(payload.get("arguments") or "{}")
    except (TypeError, ValueError):
        return None
    if not isinstance(arguments, dict) or arguments.get("sandbox_permissions") != "require_escalated":
        return None
    command = arguments.get("cmd", arguments.get("command"))
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    return str(command) if command else "(command)"


TURN_ENDS = ('"type":"task_complete"', '"type":"turn_aborted"')


def finished_turns_size(path: Path) -> int:
    """Bytes of `path` up to the end of its last finished turn: history when a thread resumes.

    A turn still running when the file was opened (or a file born in this launch) is kept."""
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    size = offset = 0
    for raw in data.split(b"\n"):
        offset += len(raw) + 1
        squeezed = raw.replace(b" ", b"")
        if any(end.encode() in squeezed for end in TURN_ENDS):
            size = offset
    return min(size, len(data) + 1)


def last_escalated_command(path: Path, window: int = 262144) -> str | None:
    """The command of the newest escalated function call in a rollout (its last `window` bytes)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, handle.seek(0, 2) - window))
            lines = handle.read().splitlines()
    except OSError:
        return None
    for raw in reversed(lines):
        if b"require_escalated" not in raw:
            continue
        record, _ = _record(raw)
        payload = record.get("payload") if record else None
        if isinstance(payload, dict) and payload.get("type") == "function_call":
            command = _escalated_command(payload)
            if command:
                return command
    return None


def parse_rollout(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    if not data:
        if "opened" not in state:
            state["opened"] = True
            if source.name == RESUMED_ROLLOUT_SOURCE and source.path is not None:
                state["history_bytes"] = finished_turns_size(source.path)
        return ParseResult()
    if state.get("history_bytes", 0) > state.get("read_bytes", 0):
        state["read_bytes"] = state.get("read_bytes", 0) + len(data) + 1
        return ParseResult()
    record, line = _record(data)
    if record is None:
        return ParseResult()
    payload = _object(record.get("payload"))
    record_type, payload_type = record.get("type"), payload.get("type")
    rule = f"{record_type}/{payload_type}" if payload_type else str(record_type)
    # The payload is what says why; the envelope (timestamp, ordinal) would fill the excerpt.
    line = json.dumps(payload, separators=(",", ":"), ensure_ascii=False) if payload else line
    if record_type == "session_meta":
        session_id = _text(payload.get("id")) or _text(payload.get("session_id"))
        if session_id:
            return ParseResult(events=[_event("session_started", source, rule, line, session_id=session_id)])
        return ParseResult()
    if record_type == "response_item" and payload_type == "function_call_output":
        return ParseResult(events=[_event("generating", source, rule, line)])
    # An escalated `function_call` is no status change here: Codex 0.169.0 logs it before its
    # dialog is drawn, and a key sent then lands in the composer. The dialog on screen is the
    # approval (parse_terminal), with this call's command as its evidence.
    if record_type != "event_msg":
        return ParseResult()
    if payload_type == "task_started":
        return ParseResult(events=[_event("turn_started", source, rule, line)])
    if payload_type == "exec_approval_request":
        command = payload.get("command")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        return ParseResult(
            events=[
                _event("approval_requested", source, rule, str(command or line), message=_text(payload.get("reason")))
            ]
        )
    if payload_type in ("exec_command_begin", "exec_command_start", "exec_command_output_delta", "exec_command_end"):
        return ParseResult(events=[_event("generating", source, rule, line)])
    if payload_type == "item_completed":
        item = _object(payload.get("item"))
        if item.get("type") == "CommandExecution":
            return ParseResult(events=[_event("generating", source, f"{rule} CommandExecution", line)])
        return ParseResult()
    if payload_type == "task_complete":
        if payload.get("error"):
            message = _error_message(payload["error"])
            return ParseResult(events=[_event("error", source, f"{rule} with error", line, message=message)])
        return ParseResult(events=[_event("turn_completed", source, rule, line)])
    if payload_type == "turn_aborted":
        return ParseResult(events=[_event("turn_completed", source, rule, line, message=_text(payload.get("reason")))])
    if payload_type == "error":  # stream_error is a retry notice, not a failure
        return ParseResult(events=[_event("error", source, rule, line, message=_error_message(payload))])
    return ParseResult()


def parse(ctx: SpawnContext | None, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    try:
        if source.format == "chunks":
            return parse_terminal(ctx, source, data, state)
        if not data:
            return parse_rollout(source, data, state) if source.name != "headless" else ParseResult()
        if source.name == "headless":
            return parse_headless(source, data)
        return parse_rollout(source, data, state)
    except Exception:  # noqa: BLE001 - a parser must never take an agent down with it
        return ParseResult()
