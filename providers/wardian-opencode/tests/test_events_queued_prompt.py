"""A prompt typed while a turn runs: OpenCode posts it as a new user message and starts no second
`busy`, so the new message is what tells the host it was taken (what `wardian send` confirms)."""

import json

from wardian_core.provider import OutputSource
from wardian_opencode import events

SOURCE = OutputSource(name="opencode-events", kind="sse", url="http://127.0.0.1:1/event")
SESSION = "ses_q1"


def message(message_id: str, role: str = "user") -> dict:
    return {"type": "message.updated", "properties": {"info": {"id": message_id, "sessionID": SESSION, "role": role}}}


def status(kind: str) -> dict:
    return {"type": "session.status", "properties": {"sessionID": SESSION, "status": {"type": kind}}}


def rules(*records: dict) -> list[tuple[str, str]]:
    parser = events.OpenCodeEvents(SOURCE)
    parser.session_id = SESSION
    found = []
    for record in records:
        found += parser.feed(json.dumps(record).encode()).events
    return [(event.kind, event.evidence.rule) for event in found]


def test_a_user_message_new_to_a_busy_session_starts_a_turn() -> None:
    assert rules(message("m1"), status("busy"), message("m1"), message("a1", "assistant"), message("m2")) == [
        ("turn_started", "session.status busy"),
        ("turn_started", "message.updated user"),
    ]


def test_an_idle_sessions_prompt_is_started_by_busy_and_updates_repeat_nothing() -> None:
    assert rules(message("m1"), status("busy"), status("idle"), message("m1"), status("busy"), message("m1")) == [
        ("turn_started", "session.status busy"),
        ("turn_completed", "session.status idle"),
        ("turn_started", "session.status busy"),
    ]


def test_another_sessions_message_is_not_the_agents() -> None:
    other = {"type": "message.updated", "properties": {"info": {"id": "m9", "sessionID": "ses_x", "role": "user"}}}
    assert rules(status("busy"), other) == [("turn_started", "session.status busy")]
