"""The parser on real Claude Code 2.1.197 output: hook logs, stream-JSON runs and raw TUI bytes."""

from pathlib import Path
from typing import Any

import pytest

from wardian_claude import parser
from wardian_core.provider_models import HEADLESS_SOURCE, PTY_SOURCE, OutputSource

FIXTURES = Path(__file__).parent / "fixtures"
HOOKS = OutputSource(name="claude-hooks", format="lines", path=Path("hooks.jsonl"))
TUI_SESSION = "22222222-2222-4333-8444-555555555555"


def feed_lines(path: Path, source: OutputSource, session_id: str | None = None) -> list[Any]:
    state: dict[str, Any] = {}
    events = []
    for line in path.read_bytes().splitlines():
        events += parser.parse(session_id, source, line, state).events
    return events


def feed_screen(data: bytes, chunk: int = 97) -> tuple[list[Any], dict[str, Any]]:
    state: dict[str, Any] = {}
    events = []
    for start in range(0, len(data), chunk):
        events += parser.parse(None, PTY_SOURCE, data[start : start + chunk], state).events
    return events, state


def kinds(events: list[Any]) -> list[str]:
    return [event.kind for event in events]


def test_tui_hook_log_gives_the_whole_approval_turn() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-tui.log", HOOKS, TUI_SESSION)

    assert kinds(events) == [
        "session_started",
        "turn_started",
        "generating",
        "approval_requested",
        "turn_started",
        "turn_completed",
        "session_ended",
    ]
    assert events[0].session_id == TUI_SESSION
    approval = events[3]
    assert approval.data["tool_name"] == "Bash"
    assert approval.data["tool_input"]["command"] == "touch perm_test.txt"
    assert approval.evidence.source == "claude-hooks"
    assert approval.evidence.rule == "hook PermissionRequest"
    assert "Bash: touch perm_test.txt" in approval.evidence.line
    assert events[4].evidence.rule == "hook PostToolUse after PermissionRequest"
    assert events[5].message == "MOCK-REPLY tool-done tuitok"


def test_a_new_session_start_is_adopted_and_its_payloads_followed() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-tui.log", HOOKS, "99999999-0000-4000-8000-000000000000")

    # SessionStart names the session Claude really runs; later payloads of it count.
    assert kinds(events)[0] == "session_started"
    assert events[0].session_id == TUI_SESSION
    assert "turn_completed" in kinds(events)


def test_payloads_of_a_stranger_session_after_ours_started_are_ignored() -> None:
    state: dict[str, Any] = {}
    ours = b'{"hook_event_name":"SessionStart","session_id":"ours","source":"startup"}'
    theirs = b'{"hook_event_name":"Stop","session_id":"theirs","last_assistant_message":"x"}'
    parser.parse("ours", HOOKS, ours, state)

    assert parser.parse("ours", HOOKS, theirs, state).events == []


def test_print_mode_hook_log_has_no_approval_and_ends_each_turn() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-print.log", HOOKS)

    assert "approval_requested" not in kinds(events)
    assert kinds(events).count("turn_completed") == 2
    assert kinds(events).count("session_ended") == 2


def test_stop_failure_hook_is_an_error_with_the_api_message() -> None:
    line = (
        b'{"session_id":"s","hook_event_name":"StopFailure","error":"unknown",'
        b'"last_assistant_message":"API Error: 400 mock error 400 requested"}'
    )

    [event] = parser.parse("s", HOOKS, line, {}).events

    assert event.kind == "error"
    assert event.message == "API Error: 400 mock error 400 requested"


@pytest.mark.parametrize(
    "fixture",
    [
        "claude-print-stream-json.jsonl",
        "claude-print-resume.jsonl",
        "recordings/claude-headless.jsonl",
        "recordings/claude-headless-resume.jsonl",
    ],
)
def test_headless_turn_starts_with_the_session_and_completes(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert kinds(events)[:2] == ["session_started", "turn_started"]
    assert events[0].session_id
    assert kinds(events)[-1] == "turn_completed"
    assert events[-1].message.startswith("MOCK-REPLY")
    assert "error" not in kinds(events)


@pytest.mark.parametrize(
    "fixture", ["claude-print-api-error400.jsonl", "recordings/claude-headless-api-error400.jsonl"]
)
def test_headless_api_error_is_an_error_although_subtype_says_success(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert kinds(events)[-1] == "error"
    assert events[-1].message == "API Error: 400 mock error 400 requested"
    assert events[-1].data == {"subtype": "success", "api_error_status": 400}
    assert "turn_completed" not in kinds(events)


@pytest.mark.parametrize(
    "fixture",
    [
        "claude-print-tool-default-perms.jsonl",
        "claude-print-tool-acceptEdits.jsonl",
        "claude-print-tool-allowed-partial-hooks.jsonl",
        "claude-print-tool-write-blocked.jsonl",
        "recordings/claude-headless-tool.jsonl",
    ],
)
def test_headless_tool_turns_generate_then_complete(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert "generating" in kinds(events)
    assert kinds(events)[-1] == "turn_completed"
    assert any(event.evidence.rule == "user tool_result" for event in events)


def test_single_json_result_is_read_too() -> None:
    events = feed_lines(FIXTURES / "claude-print-json.json", HEADLESS_SOURCE)

    assert kinds(events) == ["turn_completed"]


@pytest.mark.parametrize(
    "fixture",
    [
        "claude-tui.raw",
        "claude-tui-resume.raw",
        "recordings/claude-tui-ready.raw",
        "recordings/claude-tui.raw",
        "recordings/claude-tui-approval.raw",
    ],
)
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_ready_prompt_is_seen_once_however_the_bytes_are_cut(fixture: str, chunk: int) -> None:
    events, _ = feed_screen((FIXTURES / fixture).read_bytes(), chunk)

    assert kinds(events).count("ready") == 1
    assert events[0].kind == "ready"
    assert events[0].evidence.source == "pty"


def test_approval_dialog_on_screen_is_reported_after_the_grace_delay() -> None:
    raw = (FIXTURES / "recordings" / "claude-tui-approval.raw").read_bytes()
    cut = raw.index(b"Esc to cancel") if b"Esc to cancel" in raw else raw.index(b"cancel")
    state: dict[str, Any] = {}
    parser.parse(None, PTY_SOURCE, raw[:cut], state)

    result = parser.parse(None, PTY_SOURCE, raw[cut : cut + 10], state)
    assert result.call_again_after is None or result.call_again_after > 0
    [event] = parser.parse(None, PTY_SOURCE, b"", state).events

    assert event.kind == "approval_requested"
    assert event.evidence.rule == "approval dialog"
    assert parser.parse(None, PTY_SOURCE, b"", state).events == []  # once


def test_approval_dialog_answered_within_the_delay_is_not_reported() -> None:
    raw = (FIXTURES / "recordings" / "claude-tui-approval.raw").read_bytes()
    events, state = feed_screen(raw)

    assert parser.parse(None, PTY_SOURCE, b"", state).events == []
    assert "approval_requested" not in kinds(events)


def test_rejected_approval_ends_the_turn_from_the_screen() -> None:
    state: dict[str, Any] = {}
    parser.parse(None, PTY_SOURCE, b"\x1b[2K? for shortcuts", state)
    parser.parse(None, PTY_SOURCE, b"Do you want to \x1b[1Cproceed?\r\n 1. Yes\r\n 3. No", state)

    interrupted = b"\xe2\x8e\xbf  Interrupted \xc2\xb7 What should Claude do instead?"
    events = parser.parse(None, PTY_SOURCE, interrupted, state).events
    assert kinds(events) == ["turn_completed"]
    # Redrawn with the next prompt: no longer an end of turn.
    assert parser.parse(None, PTY_SOURCE, b"Interrupted \xc2\xb7 What should Claude do instead?", state).events == []


@pytest.mark.parametrize(
    ("screen", "reason"),
    [
        (b"Quick safety check: Is this a project you created or one you trust?", "workspace trust"),
        (b"Detected a custom API key in your environment\r\n Do you want to use this API key?", "API key"),
    ],
)
def test_first_run_screens_ask_for_a_person_with_a_reason(screen: bytes, reason: str) -> None:
    state: dict[str, Any] = {}
    events = parser.parse(None, PTY_SOURCE, screen, state).events

    assert kinds(events) == ["approval_requested"]
    assert reason in events[0].message
    # Once the person got through, the ready prompt ends the wait (ready alone leaves only starting).
    assert kinds(parser.parse(None, PTY_SOURCE, b"? for shortcuts", state).events) == ["turn_completed"]


def test_unreachable_anthropic_is_an_error() -> None:
    events = parser.parse(None, PTY_SOURCE, b"Unable to connect to Anthropic services\r\n", {}).events

    assert kinds(events) == ["error"]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b"null",
        b"[]",
        b'{"hook_event_name": 5}',
        b"\xff\xfe",
        b'{"type": {"nested": []}, "session_id": 7}',
        b"not json at all",
    ],
)
@pytest.mark.parametrize("source", [HOOKS, HEADLESS_SOURCE])
def test_malformed_lines_give_no_events(data: bytes, source: OutputSource) -> None:
    assert parser.parse("s", source, data, {}).events == []
