"""The parser's own state machine, fed the way the host feeds it."""

import json
from pathlib import Path

from wardian_codex import parser
from wardian_codex.profile import APPROVAL_SETTLE_SECONDS
from wardian_core.provider_models import HEADLESS_SOURCE, PTY_SOURCE, OutputSource

FIXTURES = Path(__file__).parent / "fixtures"

THREAD = "01a2002d-bdb3-7ee1-918a-96982cc53b81"
ROLLOUT = FIXTURES / "codex-rollout-turns-approval-reject-error.jsonl"


def kinds(result) -> list[str]:
    return [event.kind for event in result.events]


def rollout_lines() -> list[bytes]:
    return ROLLOUT.read_bytes().splitlines()


def line_of(payload_type: str) -> bytes:
    return next(line for line in rollout_lines() if json.loads(line).get("payload", {}).get("type") == payload_type)


def test_ready_status_line_is_reported_once(make_ctx) -> None:
    ctx, state = make_ctx(), {}
    parser.parse(ctx, PTY_SOURCE, b"", state)
    first = parser.parse(ctx, PTY_SOURCE, b"\x1b[2m? for\x1b[1Cshortcuts\x1b[0m", state)
    again = parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", state)
    assert kinds(first) == ["ready"] and first.events[0].evidence.rule == "status line"
    assert kinds(again) == []


def test_thread_id_is_discovered_from_the_new_writer_lock_without_a_model_turn(make_ctx) -> None:
    ctx, state = make_ctx(), {}
    locks = parser.codex_home(ctx) / "thread-writer-locks"
    locks.mkdir(parents=True)
    (locks / "01a20000-0000-7000-8000-000000000000.lock").touch()  # an earlier thread of this agent
    (locks / ".coordination.lock").touch()
    parser.parse(ctx, PTY_SOURCE, b"", state)
    ready = parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", state)
    assert kinds(ready) == ["ready"] and ready.call_again_after == parser.SESSION_LOOKUP_INTERVAL
    (locks / f"{THREAD}.lock").touch()
    found = parser.parse(ctx, PTY_SOURCE, b"", state)  # the delayed call
    assert kinds(found) == ["session_started"] and found.events[0].session_id == THREAD
    assert found.call_again_after is None


def test_rollout_appearing_is_announced_with_a_second_session_started(make_ctx) -> None:
    ctx, state = make_ctx(), {}
    home = parser.codex_home(ctx)
    (home / "thread-writer-locks").mkdir(parents=True)
    parser.parse(ctx, PTY_SOURCE, b"", state)
    (home / "thread-writer-locks" / f"{THREAD}.lock").touch()
    assert kinds(parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", state)) == ["ready", "session_started"]
    assert kinds(parser.parse(ctx, PTY_SOURCE, b"Working", state)) == []
    day = home / "sessions" / "2026" / "11" / "21"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2026-11-21T22-15-27-{THREAD}.jsonl"
    rollout.write_text("")
    announced = parser.parse(ctx, PTY_SOURCE, b"Working", state)
    assert kinds(announced) == ["session_started"]
    assert announced.events[0].data == {"rollout": str(rollout)} and announced.events[0].session_id == THREAD
    assert kinds(parser.parse(ctx, PTY_SOURCE, b"Working", state)) == []


def test_a_resumed_launch_reports_the_thread_it_resumes(make_ctx) -> None:
    ctx, state = make_ctx(session_mode="resume", provider_session_id=THREAD), {}
    parser.parse(ctx, PTY_SOURCE, b"", state)
    result = parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", state)
    assert kinds(result) == ["ready", "session_started"] and result.events[1].session_id == THREAD


def test_approval_dialog_is_reported_after_it_settled_and_once(make_ctx) -> None:
    ctx, state = make_ctx(session_mode="resume", provider_session_id=THREAD), {}
    parser.parse(ctx, PTY_SOURCE, b"", state)
    parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", state)
    drawn = parser.parse(ctx, PTY_SOURCE, b"Would you like to run the following command?", state)
    assert kinds(drawn) == [] and drawn.call_again_after == APPROVAL_SETTLE_SECONDS
    redrawn = parser.parse(ctx, PTY_SOURCE, b"Would you like to run the following command?", state)
    assert kinds(redrawn) == [] and redrawn.call_again_after is None
    due = parser.parse(ctx, PTY_SOURCE, b"", state)
    assert kinds(due) == ["approval_requested"] and due.events[0].evidence.rule == "approval dialog"
    answered = parser.parse(ctx, PTY_SOURCE, "✔ You approved codex to run touch a.txt this time".encode(), state)
    assert kinds(answered) == ["turn_started"] and answered.events[0].evidence.rule == "approval accepted"


def test_markers_split_across_reads_are_seen(make_ctx) -> None:
    ctx, state = make_ctx(), {}
    parser.parse(ctx, PTY_SOURCE, b"", state)
    data = b"\x1b[1m? for\x1b[0m shortcuts"
    events = []
    for index in range(len(data)):
        events += kinds(parser.parse(ctx, PTY_SOURCE, data[index : index + 1], state))
    assert events == ["ready"]


def test_rollout_turn_events_and_commentary() -> None:
    source, state = OutputSource(name="rollout", path=ROLLOUT), {}
    parser.parse(None, source, b"", state)
    assert kinds(parser.parse(None, source, rollout_lines()[0], state)) == ["session_started"]
    assert kinds(parser.parse(None, source, line_of("task_started"), state)) == ["turn_started"]
    agent_message = next(line for line in rollout_lines() if b'"AgentMessage"' in line)
    assert kinds(parser.parse(None, source, agent_message, state)) == []
    commentary = json.dumps({"type": "event_msg", "payload": {"type": "agent_message", "message": "thinking"}})
    assert kinds(parser.parse(None, source, commentary.encode(), state)) == []
    assert kinds(parser.parse(None, source, line_of("task_complete"), state)) == ["turn_completed"]


def test_escalated_call_in_the_rollout_is_no_status_change_but_the_dialogs_evidence(make_ctx) -> None:
    source, state = OutputSource(name="rollout", path=ROLLOUT), {}
    parser.parse(None, source, b"", state)  # the host opens every source first
    assert kinds(parser.parse(None, source, line_of("function_call"), state)) == []
    output = line_of("function_call_output")
    assert kinds(parser.parse(None, source, output, state)) == ["generating"]
    # The dialog on screen is the approval; the rollout names the command it asks about.
    ctx = make_ctx(session_mode="resume", provider_session_id=THREAD)
    day = parser.codex_home(ctx) / "sessions" / "2026" / "11" / "21"
    day.mkdir(parents=True)
    lines = rollout_lines()
    first_call = next(i for i, line in enumerate(lines) if b'"type":"function_call",' in line)
    (day / f"rollout-2026-11-21T22-15-27-{THREAD}.jsonl").write_bytes(b"\n".join(lines[: first_call + 1]) + b"\n")
    terminal: dict = {}
    parser.parse(ctx, PTY_SOURCE, b"", terminal)
    parser.parse(ctx, PTY_SOURCE, b"? for shortcuts", terminal)
    parser.parse(ctx, PTY_SOURCE, b"Would you like to run the following command?", terminal)
    due = parser.parse(ctx, PTY_SOURCE, b"", terminal)
    assert kinds(due) == ["approval_requested"]
    assert (
        due.events[0].evidence.line == "touch app.txt" and due.events[0].message == "Codex asks to run: touch app.txt"
    )


def test_api_error_ends_the_turn_as_error_with_the_api_message() -> None:
    source, state = OutputSource(name="rollout", path=ROLLOUT), {}
    failed = next(line for line in rollout_lines() if b'"task_complete"' in line and b'"error":{' in line)
    result = parser.parse(None, source, failed, state)
    assert kinds(result) == ["error"] and result.events[0].message == "mock error 400 requested"


def test_resumed_rollout_skips_finished_turns_but_keeps_one_in_progress(tmp_path: Path) -> None:
    lines = rollout_lines()
    cut = next(index for index, line in enumerate(lines) if b'"task_complete"' in line) + 1
    history = b"\n".join(lines[: cut + 2]) + b"\n"  # a finished turn, then a new one starting
    path = tmp_path / f"rollout-x-{THREAD}.jsonl"
    path.write_bytes(history)
    source, state = OutputSource(name=parser.RESUMED_ROLLOUT_SOURCE, path=path), {}
    parser.parse(None, source, b"", state)
    seen = [kind for line in history.splitlines() for kind in kinds(parser.parse(None, source, line, state))]
    assert "turn_completed" not in seen and "session_started" not in seen
    assert seen == ["turn_started"]  # the turn after the history is news


def test_headless_lines_map_to_events() -> None:
    state: dict = {}
    lines = (FIXTURES / "shared" / "codex-exec-tool-json.jsonl").read_bytes().splitlines()
    assert [kinds(parser.parse(None, HEADLESS_SOURCE, line, state)) for line in lines] == [
        ["session_started"],
        [],
        ["turn_started"],
        ["generating"],
        ["generating"],
        [],
        ["turn_completed"],
    ]
    error = (FIXTURES / "shared" / "codex-exec-api-error400.jsonl").read_bytes().splitlines()[-1]
    failed = parser.parse(None, HEADLESS_SOURCE, error, state)
    assert kinds(failed) == ["error"] and failed.events[0].message == "mock error 400 requested"


def test_malformed_input_yields_nothing(make_ctx) -> None:
    ctx = make_ctx()
    for data in (b"{", b"[1,2]", b"\xff\xfe", b'{"type": "event_msg", "payload": 3}', b"null"):
        for source in (HEADLESS_SOURCE, OutputSource(name="rollout")):
            assert parser.parse(ctx, source, data, {}).events == []
    assert parser.parse(ctx, PTY_SOURCE, b"\x1b[", {}).events == []
