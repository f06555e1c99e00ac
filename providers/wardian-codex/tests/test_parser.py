"""The rollout and `codex exec --json` rules, fed line by line the way the host feeds them."""

import json
from pathlib import Path

from wardian_codex import plugin
from wardian_core.provider_models import HEADLESS_SOURCE, PTY_SOURCE, OutputSource

FIXTURES = Path(__file__).parent / "fixtures"

ROLLOUT = FIXTURES / "codex-rollout-turns-approval-reject-error.jsonl"
ROLLOUT_SOURCE = OutputSource(name="rollout", kind="file", path=ROLLOUT)


def kinds(result) -> list[str]:
    return [event.kind for event in result.events]


def rollout_lines() -> list[bytes]:
    return ROLLOUT.read_bytes().splitlines()


def line_of(payload_type: str) -> bytes:
    return next(line for line in rollout_lines() if json.loads(line).get("payload", {}).get("type") == payload_type)


def parse(ctx, source: OutputSource, line: bytes):
    return plugin.parse_output(ctx=ctx, source=source).feed(line)


def test_rollout_lines_need_no_parser_memory(make_ctx) -> None:
    assert not hasattr(plugin.parse_output(ctx=make_ctx(), source=ROLLOUT_SOURCE), "state")


def test_rollout_turn_events_and_commentary(make_ctx) -> None:
    ctx = make_ctx()
    assert kinds(parse(ctx, ROLLOUT_SOURCE, rollout_lines()[0])) == ["session_started"]
    assert kinds(parse(ctx, ROLLOUT_SOURCE, line_of("task_started"))) == ["turn_started"]
    agent_message = next(line for line in rollout_lines() if b'"AgentMessage"' in line)
    assert kinds(parse(ctx, ROLLOUT_SOURCE, agent_message)) == []
    commentary = json.dumps({"type": "event_msg", "payload": {"type": "agent_message", "message": "thinking"}})
    assert kinds(parse(ctx, ROLLOUT_SOURCE, commentary.encode())) == []
    completed = parse(ctx, ROLLOUT_SOURCE, line_of("task_complete"))
    assert kinds(completed) == ["turn_completed"] and completed.events[0].evidence.rule == "event_msg/task_complete"


def test_escalated_call_in_the_rollout_is_no_status_change(make_ctx) -> None:
    # Codex 0.169.0 logs it before its dialog is drawn: the dialog on screen is the approval.
    assert kinds(parse(make_ctx(), ROLLOUT_SOURCE, line_of("function_call"))) == []
    assert kinds(parse(make_ctx(), ROLLOUT_SOURCE, line_of("function_call_output"))) == ["generating"]


def test_a_refused_command_ends_the_turn_with_turn_aborted(make_ctx) -> None:
    aborted = parse(make_ctx(), ROLLOUT_SOURCE, line_of("turn_aborted"))
    assert kinds(aborted) == ["turn_completed"] and aborted.events[0].evidence.rule == "event_msg/turn_aborted"


def test_an_approval_request_in_the_rollout_names_the_exec_dialog(make_ctx) -> None:
    line = {"type": "event_msg", "payload": {"type": "exec_approval_request", "command": ["touch", "a"]}}
    [requested] = parse(make_ctx(), ROLLOUT_SOURCE, json.dumps(line).encode()).events
    assert (requested.reason, requested.dialog, requested.evidence.line) == ("tool", "exec", "touch a")


def test_api_error_ends_the_turn_as_error_with_the_api_message(make_ctx) -> None:
    failed = next(line for line in rollout_lines() if b'"task_complete"' in line and b'"error":{' in line)
    result = parse(make_ctx(), ROLLOUT_SOURCE, failed)
    assert kinds(result) == ["error"] and result.events[0].message == "mock error 400 requested"


def test_headless_lines_map_to_events(make_ctx) -> None:
    ctx = make_ctx(mode="headless", prompt="x")
    lines = (FIXTURES / "shared" / "codex-exec-tool-json.jsonl").read_bytes().splitlines()
    assert [kinds(parse(ctx, HEADLESS_SOURCE, line)) for line in lines] == [
        ["session_started"],
        [],
        ["turn_started"],
        ["generating"],
        ["generating"],
        [],
        ["turn_completed"],
    ]
    error = (FIXTURES / "shared" / "codex-exec-api-error400.jsonl").read_bytes().splitlines()[-1]
    failed = parse(ctx, HEADLESS_SOURCE, error)
    assert kinds(failed) == ["error"] and failed.events[0].message == "mock error 400 requested"


def test_a_headless_turn_completes_with_its_last_agent_message(make_ctx) -> None:
    ctx = make_ctx(mode="headless", prompt="x")
    headless = plugin.parse_output(ctx=ctx, source=HEADLESS_SOURCE)
    preamble = {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Running it."}}
    lines = [
        json.dumps(preamble).encode(),
        *(FIXTURES / "shared" / "codex-exec-tool-json.jsonl").read_bytes().splitlines(),
    ]
    results = [headless.feed(line) for line in lines]

    [completed] = [event for result in results for event in result.events if event.kind == "turn_completed"]
    # `turn.completed` itself says nothing: the reply is the turn's last agent message.
    assert completed.message == "MOCK-REPLY tool-done ctok3"
    assert all(event.kind != "turn_completed" for event in results[-2].events)
    # The next turn starts without it: a turn with no message completes with none.
    ended = headless.feed(lines[-1])
    assert [(event.kind, event.message) for event in ended.events] == [("turn_completed", None)]


def test_malformed_input_yields_nothing(make_ctx) -> None:
    ctx = make_ctx()
    for data in (b"{", b"[1,2]", b"\xff\xfe", b'{"type": "event_msg", "payload": 3}', b"null"):
        for source in (HEADLESS_SOURCE, ROLLOUT_SOURCE):
            assert parse(ctx, source, data).events == []
    assert parse(ctx, PTY_SOURCE, b"\x1b[").events == []
