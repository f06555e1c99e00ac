"""Claude Code output → provider events. Never raises on bad input.

Three sources, each with its own state:

- `claude-hooks` (primary): the JSONL our hooks append, one payload per line (the shared
  fixtures' `time<TAB>event<TAB>json` logs are read too). Payloads of another session are
  ignored once the agent's session id is known.
- `pty` (secondary): the TUI's screen — the ready prompt after start, the approval dialog,
  and the first-run screens (trust, onboarding, sign-in) that would otherwise hang silently.
- `headless`: `-p --output-format stream-json --verbose` lines (or the one `--output-format
  json` object).
"""

import codecs
import json
import re
from typing import Any

from wardian_core.provider_models import EventKind, Evidence, OutputSource, ParseResult, ProviderEvent, excerpt

# -- common ------------------------------------------------------------------------------


def _event(kind: EventKind, source: OutputSource, rule: str, line: str | None, **fields: Any) -> ProviderEvent:
    evidence = Evidence(source=source.name, rule=rule, line=excerpt(line, 300) if line else None)
    return ProviderEvent(kind=kind, evidence=evidence, **fields)


def _json_object(data: bytes) -> dict[str, Any] | None:
    text = data.decode("utf-8", "replace").strip()
    start = text.find("{")
    if start < 0:
        return None
    try:
        record = json.loads(text[start:])
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# -- hook payloads -----------------------------------------------------------------------


def _tool_summary(record: dict[str, Any]) -> str:
    tool = _text(record.get("tool_name")) or "tool"
    tool_input = record.get("tool_input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        return f"{tool}: {tool_input['command']}"
    try:
        return f"{tool}: {json.dumps(tool_input, ensure_ascii=False)}" if tool_input is not None else tool
    except (TypeError, ValueError):
        return tool


def _tool_data(record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"tool_name": _text(record.get("tool_name"))}
    if isinstance(record.get("tool_input"), dict):
        data["tool_input"] = record["tool_input"]
    if _text(record.get("tool_use_id")):
        data["tool_use_id"] = record["tool_use_id"]
    return data


def parse_hook(ctx_session_id: str | None, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    record = _json_object(data)
    if record is None:
        return ParseResult()
    name = _text(record.get("hook_event_name"))
    session_id = _text(record.get("session_id"))
    expected = state.get("session_id") or ctx_session_id
    if name is None:
        return ParseResult()
    if expected and session_id and session_id != expected and name != "SessionStart":
        return ParseResult()  # another session's payload
    rule = f"hook {name}"
    if name == "SessionStart":
        state["session_id"] = session_id or expected
        return ParseResult(
            events=[
                _event(
                    "session_started",
                    source,
                    rule,
                    f"{name} source={record.get('source')} {session_id}",
                    session_id=session_id,
                )
            ]
            if session_id
            else []
        )
    if name == "UserPromptSubmit":
        state.pop("approval_pending", None)
        prompt = _text(record.get("prompt")) or ""
        return ParseResult(events=[_event("turn_started", source, rule, f"{name} {prompt}")])
    if name == "PreToolUse":
        return ParseResult(
            events=[_event("generating", source, rule, f"{name} {_tool_summary(record)}", data=_tool_data(record))]
        )
    if name == "PermissionRequest":
        state["approval_pending"] = True
        summary = _tool_summary(record)
        return ParseResult(
            events=[
                _event(
                    "approval_requested", source, rule, f"{name} {summary}", message=summary, data=_tool_data(record)
                )
            ]
        )
    if name in ("PostToolUse", "PostToolUseFailure"):
        if state.pop("approval_pending", None):
            # The tool ran (or failed) after its approval dialog: the dialog was answered and
            # the turn goes on. `generating` alone cannot leave action_required (status rules).
            return ParseResult(
                events=[
                    _event(
                        "turn_started",
                        source,
                        f"{rule} after PermissionRequest",
                        f"{name} {_tool_summary(record)}",
                        data=_tool_data(record),
                    )
                ]
            )
        return ParseResult(
            events=[_event("generating", source, rule, f"{name} {_tool_summary(record)}", data=_tool_data(record))]
        )
    if name == "Stop":
        state.pop("approval_pending", None)
        last = _text(record.get("last_assistant_message")) or ""
        return ParseResult(events=[_event("turn_completed", source, rule, f"{name} {last}", message=last or None)])
    if name == "StopFailure":
        state.pop("approval_pending", None)
        # `error` is often just "unknown" (2.1.197); the message says what the API answered.
        reason = _text(record.get("last_assistant_message")) or _text(record.get("error"))
        return ParseResult(
            events=[
                _event(
                    "error",
                    source,
                    rule,
                    f"{name} {reason or ''}",
                    message=reason or "the turn ended with an API error",
                )
            ]
        )
    if name == "SessionEnd":
        reason = _text(record.get("reason")) or ""
        return ParseResult(events=[_event("session_ended", source, rule, f"{name} reason={reason}")])
    return ParseResult()  # Notification and others: kept in the file, no status of their own


# -- the TUI screen ----------------------------------------------------------------------

# CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, and two-byte escapes.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]"
)
_UNFINISHED_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?)?$")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")
_WHITESPACE = re.compile(r"\s+")
_TAIL_CHARS = 200

# Markers without spaces: the TUI draws spaces by moving the cursor (2.1.197).
READY_MARKER = "?forshortcuts"
APPROVAL_MARKER = "Doyouwanttoproceed?"
# First-run screens that wait for a person before the prompt is usable: (marker, reason).
FIRST_RUN_SCREENS = (
    ("Doyoutrustthefilesinthisfolder?", "workspace trust dialog: Claude asks whether to trust this folder"),
    ("Isthisaprojectyoucreatedoroneyoutrust?", "workspace trust dialog: Claude asks whether to trust this folder"),
    ("Yes,Itrustthisfolder", "workspace trust dialog: Claude asks whether to trust this folder"),
    ("Choosethetextstyle", "first-run onboarding: Claude asks for a theme"),
    ("Selectloginmethod", "sign-in: Claude asks how to log in"),
    ("DetectedacustomAPIkey", "API key confirmation: Claude asks whether to use ANTHROPIC_API_KEY"),
    ("DoyouwanttousethisAPIkey?", "API key confirmation: Claude asks whether to use ANTHROPIC_API_KEY"),
)
# A rejected approval (or Esc) interrupts the turn without any hook (2.1.197): only the screen
# says the turn is over. The line is redrawn with later prompts, so it counts only right after
# an approval dialog.
INTERRUPTED_MARKER = "WhatshouldClaudedoinstead?"
# Drawn under the prompt while a turn runs; after a dialog it means the dialog was answered.
BUSY_MARKER = "esctointerrupt"
# The PermissionRequest hook reports a dialog with its tool; the screen reports it only if the
# hook has not within this delay (hooks off or broken), and only if it is still on screen.
SCREEN_APPROVAL_GRACE_SECONDS = 1.0
# Without onboarding state Claude checks api.anthropic.com first and exits when it cannot.
UNREACHABLE_MARKER = "UnabletoconnecttoAnthropicservices"


def _screen_text(state: dict[str, Any], data: bytes) -> str:
    decoder = state.setdefault("decoder", codecs.getincrementaldecoder("utf-8")(errors="replace"))
    text = state.pop("unfinished", "") + decoder.decode(data)
    unfinished = _UNFINISHED_ESCAPE.search(text)
    if unfinished:
        state["unfinished"] = unfinished.group(0)[:4096]
        text = text[: unfinished.start()]
    return _WHITESPACE.sub("", _CONTROLS.sub(" ", _ESCAPES.sub(" ", text)))


def parse_screen(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    squeezed = state.get("tail", "") + _screen_text(state, data)
    events: list[ProviderEvent] = []
    call_again_after = None
    consumed = 0
    matches: list[tuple[int, str, str, str | None]] = []
    for marker, screen_reason in FIRST_RUN_SCREENS:
        at = squeezed.find(marker)
        if at >= 0:
            matches.append((at, marker, "first_run", screen_reason))
    for marker, kind in (
        (READY_MARKER, "ready"),
        (APPROVAL_MARKER, "approval"),
        (INTERRUPTED_MARKER, "interrupted"),
        (UNREACHABLE_MARKER, "unreachable"),
        (BUSY_MARKER, "busy"),
    ):
        at = squeezed.find(marker)
        if at >= 0:
            matches.append((at, marker, kind, None))
    for at, marker, kind, reason in sorted(matches):
        consumed = max(consumed, at + len(marker))
        if kind == "first_run":
            if state.get("first_run") != reason:
                state["first_run"] = reason
                events.append(
                    _event(
                        "approval_requested",
                        source,
                        "first-run screen",
                        marker,
                        message=reason,
                        data={"reason": reason},
                    )
                )
        elif kind == "busy":
            state.pop("dialog_on_screen", None)
        elif kind == "ready":
            state.pop("dialog_on_screen", None)
            if state.get("first_run"):
                # A person got past a first-run screen; `ready` alone only leaves `starting`.
                state.pop("first_run")
                state["ready"] = True
                events.append(_event("turn_completed", source, "ready prompt after a first-run screen", marker))
            elif not state.get("ready"):
                state["ready"] = True
                events.append(_event("ready", source, "ready prompt", marker))
        elif kind == "approval":
            state["dialog_seen"] = True
            state["dialog_on_screen"] = True
            call_again_after = SCREEN_APPROVAL_GRACE_SECONDS
        elif kind == "interrupted":
            state.pop("dialog_on_screen", None)
            if state.pop("dialog_seen", None):
                events.append(
                    _event(
                        "turn_completed",
                        source,
                        "turn interrupted after an approval dialog",
                        marker,
                        message="the tool was not approved",
                    )
                )
        else:
            events.append(
                _event(
                    "error",
                    source,
                    "cannot reach Anthropic",
                    marker,
                    message="Claude Code cannot reach Anthropic's API (first-run connectivity check)",
                )
            )
    state["tail"] = squeezed[max(consumed, len(squeezed) - _TAIL_CHARS) :]
    return ParseResult(events=events, call_again_after=call_again_after)


def screen_quiet(source: OutputSource, state: dict[str, Any]) -> ParseResult:
    """Called back after the grace delay: a dialog still on screen is reported from here."""
    if not state.pop("dialog_on_screen", None):
        return ParseResult()
    return ParseResult(
        events=[
            _event(
                "approval_requested",
                source,
                "approval dialog",
                APPROVAL_MARKER,
                message="Claude asks before running a tool",
            )
        ]
    )


# -- headless stream-JSON ----------------------------------------------------------------


def _content_summary(message: Any) -> str:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return ""
    parts = []
    for block in message["content"]:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif block.get("type") == "tool_use":
            parts.append(f"tool_use {block.get('name')}")
        elif block.get("type") == "tool_result":
            parts.append("tool_result" + (" (error)" if block.get("is_error") is True else ""))
    return " ".join(parts)


def parse_stream_line(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    record = _json_object(data)
    if record is None:
        return ParseResult()
    kind, subtype = record.get("type"), record.get("subtype")
    session_id = _text(record.get("session_id"))
    if kind == "system" and subtype == "init":
        state["session_id"] = session_id
        events = (
            [
                _event(
                    "session_started",
                    source,
                    "system/init",
                    f"init {session_id} model={record.get('model')}",
                    session_id=session_id,
                )
            ]
            if session_id
            else []
        )
        return ParseResult(events=events + [_event("turn_started", source, "system/init", "init")])
    if kind in ("assistant", "user"):
        rule = "assistant" if kind == "assistant" else "user tool_result"
        return ParseResult(events=[_event("generating", source, rule, _content_summary(record.get("message")))])
    if kind == "result":
        text = _text(record.get("result")) or ""
        # An API error is still `subtype: "success"` (2.1.197): only is_error tells.
        if record.get("is_error") is True or (isinstance(subtype, str) and subtype != "success"):
            status = record.get("api_error_status")
            data_fields = {
                "subtype": subtype if isinstance(subtype, str) else None,
                "api_error_status": status if isinstance(status, int) else None,
            }
            return ParseResult(
                events=[
                    _event(
                        "error",
                        source,
                        "result is_error",
                        f"result {subtype}: {text}",
                        message=text or "Claude reported an error",
                        data=data_fields,
                        session_id=session_id,
                    )
                ]
            )
        return ParseResult(
            events=[
                _event(
                    "turn_completed", source, "result", f"result: {text}", message=text or None, session_id=session_id
                )
            ]
        )
    return ParseResult()


# -- dispatch ----------------------------------------------------------------------------


def parse(ctx_session_id: str | None, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    if source.format == "chunks":
        return parse_screen(source, data, state) if data else screen_quiet(source, state)
    if not data:
        return ParseResult()
    if source.name == "headless":
        return parse_stream_line(source, data, state)
    return parse_hook(ctx_session_id, source, data, state)
