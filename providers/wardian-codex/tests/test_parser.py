"""The rollout and `codex exec --json` rules, fed line by line the way the host feeds them."""

import json
from pathlib import Path

import pytest

from wardian_codex import plugin
from wardian_codex.hooks import HOOKS_SOURCE
from wardian_core.provider import HEADLESS_SOURCE, PTY_SOURCE, OutputSource
from wardian_core.provider.testing import StatusCourse

FIXTURES = Path(__file__).parent / "fixtures"

ROLLOUT = FIXTURES / "codex-rollout-turns-approval-reject-error.jsonl"
ROLLOUT_SOURCE = OutputSource(name="rollout", kind="file", path=ROLLOUT)
# The hooks of a turn that runs one command, in the order Codex 0.169.0 runs them.
HOOK_TURN = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def kinds(result) -> list[str]:
    return [event.kind for event in result.events]


def rollout_lines() -> list[bytes]:
    return ROLLOUT.read_bytes().splitlines()


def line_of(payload_type: str) -> bytes:
    return next(line for line in rollout_lines() if json.loads(line).get("payload", {}).get("type") == payload_type)


def parse(ctx, source: OutputSource, line: bytes):
    return plugin.parse_output(ctx=ctx, source=source).feed(line)


def test_rollout_usage_per_model_call_with_its_model_and_context_window(make_ctx) -> None:
    parser = plugin.parse_output(ctx=make_ctx(), source=ROLLOUT_SOURCE)
    reports = [event.usage for line in rollout_lines() for event in parser.feed(line).events if event.usage]
    # Four token_count events in the recording, each a call of 10 in and 5 out (the model server's
    # figures then); the running totals 15, 30, 45, 60 name them.
    assert [report.turn_key for report in reports] == [f"{ROLLOUT.name}:total={total}" for total in (15, 30, 45, 60)]
    first = reports[0]
    assert (first.input_tokens, first.output_tokens, first.cache_read_tokens, first.reasoning_tokens) == (10, 5, 0, 0)
    assert (first.model, first.context_used, first.context_window) == ("mock-model", 15, 258400)
    assert first.cost_usd is None  # Codex states no cost
    assert first.rate_limits == []  # primary and secondary are null without a plan
    assert first.recorded_at == "2026-11-21T22:15:27.631Z"  # the rollout line's own time


def test_a_token_count_repeated_with_the_same_totals_names_the_same_call(make_ctx) -> None:
    line = line_of("token_count")
    first = parse(make_ctx(), ROLLOUT_SOURCE, line).events[0].usage
    again = parse(make_ctx(), ROLLOUT_SOURCE, line).events[0].usage
    assert first is not None and again is not None and first.turn_key == again.turn_key


def test_rate_limit_windows_and_cached_input(make_ctx) -> None:
    usage = {"input_tokens": 1500, "cached_input_tokens": 300, "output_tokens": 70, "reasoning_output_tokens": 9}
    info = {"last_token_usage": usage | {"total_tokens": 1570}, "total_token_usage": {"total_tokens": 1570}}
    limits = {
        "primary": {"used_percent": 12.5, "window_minutes": 300, "resets_at": 1767225600},
        "secondary": None,
    }
    record = {"type": "event_msg", "payload": {"type": "token_count", "info": info, "rate_limits": limits}}
    report = parse(make_ctx(), ROLLOUT_SOURCE, json.dumps(record).encode()).events[0].usage
    assert report is not None
    assert (report.input_tokens, report.cache_read_tokens, report.cache_write_tokens) == (1200, 300, None)
    assert (report.output_tokens, report.reasoning_tokens, report.context_window) == (70, 9, None)
    assert [window.model_dump() for window in report.rate_limits] == [
        {"name": "primary", "used_percent": 12.5, "window_minutes": 300, "resets_at": "2026-01-01T00:00:00Z"}
    ]


def test_a_recorded_exec_turn_reports_the_model_servers_figures(make_ctx) -> None:
    # Recorded from Codex 0.169.0 against the model server: 1500 input of which 300 cached, 70
    # output of which 9 reasoning.
    recording = Path(__file__).parents[3] / "tests" / "real_cli" / "recordings" / "codex" / "codex-headless.jsonl"
    headless = plugin.parse_output(ctx=make_ctx(mode="headless", prompt="x"), source=HEADLESS_SOURCE)
    lines = recording.read_bytes().splitlines()
    [report] = [event.usage for line in lines for event in headless.feed(line).events if event.usage]
    assert (report.input_tokens, report.cache_read_tokens, report.cache_write_tokens) == (1200, 300, 0)
    assert (report.output_tokens, report.reasoning_tokens, report.cost_usd) == (70, 9, None)


def test_a_token_count_without_info_reports_nothing(make_ctx) -> None:
    record = {"type": "event_msg", "payload": {"type": "token_count", "info": None, "rate_limits": {}}}
    assert parse(make_ctx(), ROLLOUT_SOURCE, json.dumps(record).encode()).events == []


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
        ["usage_reported", "turn_completed"],
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
    assert [(event.kind, event.message) for event in ended.events] == [
        ("usage_reported", None),
        ("turn_completed", None),
    ]


def test_a_headless_turn_reports_its_usage_once_per_turn(make_ctx) -> None:
    headless = plugin.parse_output(ctx=make_ctx(mode="headless", prompt="x"), source=HEADLESS_SOURCE)
    lines = (FIXTURES / "shared" / "codex-exec-json.jsonl").read_bytes().splitlines()
    reports = [event.usage for line in lines for event in headless.feed(line).events if event.usage]
    [report] = reports
    assert report.turn_key == "01a1fff0-8c26-7bc0-a010-8f72dbe99cfe:turn=1"
    assert (report.input_tokens, report.output_tokens, report.cache_read_tokens, report.cache_write_tokens) == (
        10,
        5,
        0,
        0,
    )
    assert (report.cost_usd, report.context_window, report.model) == (None, None, None)


def test_malformed_input_yields_nothing(make_ctx) -> None:
    ctx = make_ctx()
    for data in (b"{", b"[1,2]", b"\xff\xfe", b'{"type": "event_msg", "payload": 3}', b"null"):
        for source in (HEADLESS_SOURCE, ROLLOUT_SOURCE):
            assert parse(ctx, source, data).events == []
    assert parse(ctx, PTY_SOURCE, b"\x1b[").events == []


def tool_turn_lines() -> tuple[str, str, list[bytes]]:
    """The recording's thread id, its tool turn's id and that turn's rollout lines, start to end."""
    lines = rollout_lines()
    session = json.loads(lines[0])["payload"]["id"]
    starts = [index for index, line in enumerate(lines) if b'"task_started"' in line]
    turn_lines = lines[starts[1] : starts[2]]
    return session, json.loads(turn_lines[0])["payload"]["turn_id"], turn_lines


@pytest.mark.parametrize("hooks_first", [True, False])
def test_a_turn_told_by_hooks_and_rollout_starts_and_ends_once_whichever_is_read_first(make_ctx, hooks_first) -> None:
    # Each source is followed on its own: on a loaded machine the hook log's Stop is read before
    # the rollout's tool output and task_complete of the same turn, or the other way round.
    session, turn, rollout = tool_turn_lines()
    payloads = [{"hook_event_name": name, "session_id": session, "turn_id": turn} for name in HOOK_TURN]
    hook_lines = [json.dumps(payload).encode() for payload in payloads]
    ctx = make_ctx()
    hooks = plugin.parse_output(ctx=ctx, source=OutputSource(name=HOOKS_SOURCE, kind="file", path=Path("/unused")))
    rollouts = plugin.parse_output(ctx=ctx, source=ROLLOUT_SOURCE)
    fed = [(hooks, hook_lines), (rollouts, rollout)]
    course, changes = StatusCourse("idle"), []
    for parser, lines in fed if hooks_first else reversed(fed):
        for event in (event for line in lines for event in parser.feed(line).events):
            assert event.kind in ("session_started", "usage_reported") or event.turn == turn, event
            if course.apply(event.kind, event.turn):
                changes.append((course.status, event.kind, event.evidence.source))
    first = "codex-hooks" if hooks_first else "rollout"
    assert changes == [("processing", "turn_started", first), ("idle", "turn_completed", first)]
