"""The event-stream rules on OpenCode 1.18.33's recorded `GET /event` bodies (`fixtures/recordings`,
recorded from the TUI's own server against the loopback model server), decoded by the host's own
SSE parser and fed one event per call, as the host feeds them live."""

from pathlib import Path

import pytest

from wardian_core.provider import OutputSource, SpawnContext
from wardian_core.provider.parsing import EventParser
from wardian_opencode import events
from wardian_opencode.profile import PERMISSION_DIALOG

RECORDINGS = Path(__file__).parent / "fixtures" / "recordings"
SOURCE = OutputSource(name="opencode-events", kind="sse", url="http://127.0.0.1:1/event")


def replay(name: str, ctx: SpawnContext | None = None) -> list:
    parser = events.OpenCodeEvents(SOURCE, ctx)
    found = []
    for data in EventParser().feed((RECORDINGS / name).read_bytes()):
        found += parser.feed(data).events
    return found


def kinds(found: list) -> list[tuple[str, str]]:
    return [(event.kind, event.evidence.rule) for event in found if event.kind not in ("generating", "usage_reported")]


def test_a_turn_starts_the_session_and_ends_on_the_first_idle() -> None:
    found = replay("opencode-events-turn.sse")
    assert kinds(found) == [
        ("session_started", "session.created"),
        ("turn_started", "session.status busy"),  # busy comes 3-4 times a turn: one start
        ("turn_completed", "session.status idle"),  # session.idle right after: one end
    ]
    assert found[0].session_id.startswith("ses_")


def test_an_assistant_message_reports_its_usage_once_its_call_ended() -> None:
    reports = [event.usage for event in replay("opencode-events-turn.sse") if event.usage]
    # Updated twice after it completed: the same call, named by its message id. The zeros the
    # message carries before its call ended are no report.
    assert {report.turn_key for report in reports} == {"msg_205efba0f001eqatMa27O288YU"}
    report = reports[-1]
    assert (report.input_tokens, report.output_tokens, report.reasoning_tokens) == (10, 5, 0)
    assert (report.cache_read_tokens, report.cache_write_tokens, report.context_used) == (0, 0, 15)
    assert (report.cost_usd, report.model, report.context_window) == (0.0, "mock/mock-model", None)
    assert report.recorded_at == "2026-11-23T01:05:28.505Z"  # the call's end, OpenCode's `time.completed`


def test_a_permission_is_asked_with_its_command_and_each_answer_is_told() -> None:
    found = replay("opencode-events-approval.sse")
    asked = [event for event in found if event.kind == "approval_requested"]
    assert [(e.evidence.line, e.reason, e.dialog, e.data["tool"]) for e in asked] == [
        ("touch approved.txt", "tool", PERMISSION_DIALOG, "bash"),
        ("touch refused.txt", "tool", PERMISSION_DIALOG, "bash"),
    ]
    assert all(e.data["request_id"].startswith("per_") for e in asked)
    answers = [(e.evidence.rule, e.answer) for e in found if e.kind == "approval_resolved"]
    assert answers == [("permission.replied once", "accepted"), ("permission.replied reject", "rejected")]
    ran = [e.data for e in found if e.kind == "generating" and e.data.get("status") == "completed"]
    assert ran and ran[0]["tool"] == "bash" and ran[0]["input"]["command"] == "touch approved.txt"


def test_always_and_api_answers_are_accepted() -> None:
    answers = [e.answer for e in replay("opencode-events-api-replies.sse") if e.kind == "approval_resolved"]
    assert answers == ["accepted", "accepted", "accepted", "rejected"]


def test_an_api_error_is_an_error_and_the_idle_after_it_ends_no_turn() -> None:
    found = replay("opencode-events-api-error.sse")
    assert kinds(found) == [
        ("session_started", "session.created"),
        ("turn_started", "session.status busy"),
        ("error", "session.error"),
    ]
    assert found[-1].message == "mock error 400 requested"


def test_events_of_another_session_are_not_the_agents(make_ctx) -> None:
    # A resumed agent knows its session: a stream about another one tells it nothing.
    assert replay("opencode-events-approval.sse", make_ctx(provider_session_id="ses_someone_else")) == []


def test_a_child_session_of_a_subagent_does_not_become_the_agents() -> None:
    parser = events.OpenCodeEvents(SOURCE)
    child = b'{"type":"session.created","properties":{"info":{"id":"ses_child","parentID":"ses_root"}}}'
    assert parser.feed(child).events == []
    assert parser.session_id is None


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"[]", b'{"type":7}', b'{"type":"session.status","properties":[]}', b"\xff", b'{"type":"x"}'],
)
def test_malformed_events_never_raise(data: bytes) -> None:
    assert events.OpenCodeEvents(SOURCE).feed(data).events == []
