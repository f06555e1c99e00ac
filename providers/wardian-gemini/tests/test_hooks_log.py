"""Gemini's hook log (`gemini-hooks`): where a new host may begin its replay."""

import json
from pathlib import Path
from typing import Any

from wardian_core.provider import OutputSource
from wardian_core.provider.testing import rests_of
from wardian_gemini import parser

SESSION = "5b1c2d3e-0000-4000-8000-000000000001"
HOOKS = OutputSource(name="gemini-hooks", kind="file", path=Path("/unused"))
# A turn whose shell command Gemini asked about and ran once accepted, as Wardian's recorder
# writes its payloads (compact JSON, one a line).
TURN: list[dict[str, Any]] = [
    {"hook_event_name": "SessionStart", "source": "startup"},
    {"hook_event_name": "BeforeAgent", "prompt": "make a file"},
    {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "touch a"}},
    {
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "message": "Allow execution of: 'touch'?",
        "details": {"type": "exec", "command": "touch a", "rootCommand": "touch"},
    },
    {"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {"command": "touch a"}},
    {"hook_event_name": "AfterAgent", "prompt_response": "Done."},
]


def lines(session: str = SESSION) -> list[bytes]:
    return [json.dumps({"session_id": session, **payload}, separators=(",", ":")).encode() for payload in TURN]


def test_a_new_host_replays_the_hook_log_from_any_line_but_an_open_dialog(make_ctx) -> None:
    known = make_ctx(provider_session_id=SESSION)
    rests = rests_of(lambda: parser.parser_for(known, HOOKS), lines() * 2)
    names = [payload["hook_event_name"] for payload in TURN] * 2
    # SessionStart asks for a look at the screen (ready needs the prompt), which a replay asks again.
    assert [name for name, at_rest in zip(names, rests, strict=True) if not at_rest] == [
        "SessionStart",
        "Notification",
    ] * 2
    # Resumed after the question, a new parser would not know it was asked: the run is no answer.
    asked = parser.parser_for(known, HOOKS)
    kinds = [[event.kind for event in asked.feed(line).events] for line in lines()]
    assert kinds[4] == ["approval_resolved", "generating"]


def test_a_session_the_host_does_not_know_yet_is_no_rest(make_ctx) -> None:
    assert not any(rests_of(lambda: parser.parser_for(make_ctx(), HOOKS), lines()))
