"""The `opencode run --format json` rules, fed OpenCode 1.18.33's recorded runs line by line the way the
host feeds a headless run's stdout (`fixtures/shared`: the shared transcripts, copied here)."""

import json
from pathlib import Path

import pytest

from wardian_core.provider import HEADLESS_SOURCE
from wardian_opencode.headless import OpenCodeHeadless

FIXTURES = Path(__file__).parent / "fixtures" / "shared"

STARTED = [("session_started", "sessionID"), ("turn_started", "type=step_start")]
USAGE = ("usage_reported", "type=step_finish tokens")
DONE = ("turn_completed", "type=step_finish reason=stop")
TOOL_STEP = [("generating", "type=tool_use"), USAGE, ("generating", "type=step_finish reason=tool-calls")]
EXPECTED = {
    "opencode-run-json.jsonl": [*STARTED, ("generating", "type=text"), USAGE, DONE],
    "opencode-run-session-resume-json.jsonl": [*STARTED, ("generating", "type=text"), USAGE, DONE],
    "opencode-run-tool-json.jsonl": [
        *STARTED,
        *TOOL_STEP,
        ("generating", "type=step_start"),
        ("generating", "type=text"),
        USAGE,
        DONE,
    ],
    # `run` rejects a permission set to `ask` on the spot, and ends after that step.
    "opencode-run-tool-ask-autoreject-json.jsonl": [*STARTED, *TOOL_STEP],
    "opencode-run-api-error400.jsonl": [("session_started", "sessionID"), ("error", "type=error")],
}


def replay(name: str) -> list:
    parser = OpenCodeHeadless(HEADLESS_SOURCE)
    events = []
    for line in (FIXTURES / name).read_bytes().splitlines():
        events += parser.feed(line).events
    return events


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recorded_run_gives_its_events(name: str) -> None:
    assert [(e.kind, e.evidence.rule) for e in replay(name)] == EXPECTED[name]


def test_the_session_is_the_first_records_and_a_resumed_run_names_the_same() -> None:
    first = replay("opencode-run-json.jsonl")[0]
    resumed = replay("opencode-run-session-resume-json.jsonl")[0]
    assert first.session_id == resumed.session_id == "ses_e000c8a98ffe3TR7QtuIEgJSQn"


def test_a_refused_tool_names_the_command_and_why() -> None:
    tool = replay("opencode-run-tool-ask-autoreject-json.jsonl")[2]
    assert tool.data == {
        "tool": "bash",
        "input": {"command": "echo OCASK > oc_ask.txt"},
        "status": "error",
        "error": "The user rejected permission to use this specific tool call.",
    }


def test_each_step_reports_its_calls_usage_under_its_message() -> None:
    # Recorded from OpenCode 1.18.33 against the model server: each call 1500 prompt tokens of which
    # 300 cached, 70 output of which 9 reasoning; OpenCode counts the output without the reasoning.
    recording = Path(__file__).parents[3] / "tests" / "real_cli" / "recordings" / "opencode"
    parser = OpenCodeHeadless(HEADLESS_SOURCE)
    lines = (recording / "opencode-headless-tool.jsonl").read_bytes().splitlines()
    reports = [e.usage for line in lines for e in parser.feed(line).events if e.usage]
    assert len(reports) == 2 and len({report.turn_key for report in reports}) == 2  # one per step's message
    report = reports[0]
    assert (report.input_tokens, report.cache_read_tokens, report.cache_write_tokens) == (1200, 300, 0)
    assert (report.output_tokens, report.reasoning_tokens, report.context_used) == (70, 9, 1570)
    assert report.cost_usd == 0.0  # OpenCode's own table has no price for the mock model
    assert report.recorded_at == "2026-11-25T22:12:39.440Z"  # the step_finish line's own time


def test_an_api_error_carries_the_apis_message() -> None:
    error = replay("opencode-run-api-error400.jsonl")[-1]
    assert error.message == "mock error 400 requested"


@pytest.mark.parametrize("line", [b"", b"not json", b"[1,2]", b'{"type":"step_finish","part":7}', b"\xff\xfe"])
def test_bad_lines_never_raise(line: bytes) -> None:
    events = OpenCodeHeadless(HEADLESS_SOURCE).feed(line).events
    assert all(event.kind in ("turn_completed", "session_started", "usage_reported") for event in events)


def test_the_fixtures_are_what_the_tests_expect() -> None:
    # Every line of each transcript is one JSON object with a type and a session.
    for name in EXPECTED:
        for line in (FIXTURES / name).read_text().splitlines():
            record = json.loads(line)
            assert record["type"] and record["sessionID"].startswith("ses_")
