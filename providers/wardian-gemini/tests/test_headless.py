"""The `gemini -p --output-format stream-json` rules, fed the recorded runs line by line the way the host
feeds a headless run's stdout."""

import json
from pathlib import Path

import pytest

from wardian_core.provider import HEADLESS_SOURCE as CORE_HEADLESS_SOURCE
from wardian_core.provider import OutputSource, ParseResult
from wardian_gemini.headless import HEADLESS_SOURCE, GeminiHeadless

# The recordings of Gemini CLI 0.61.0 are shared by every provider's work; a copy next to the tests wins.
# Real transcripts of Gemini CLI 0.61.0, copied here.
FIXTURES = Path(__file__).parent / "fixtures" / "shared"

SOURCE = OutputSource(name=HEADLESS_SOURCE, kind="headless")

INIT = ("session_started", "type=init")
USER = ("turn_started", "type=message role=user")
CHUNK = ("generating", "type=message role=assistant")
SUCCESS = ("turn_completed", "type=result status=success")
USAGE = ("usage_reported", "result stats")

EXPECTED = {
    "gemini-prompt-stream-json.jsonl": [INIT, USER, CHUNK, CHUNK, CHUNK, CHUNK, USAGE, SUCCESS],
    "gemini-prompt-resume-stream-json.jsonl": [INIT, USER, CHUNK, CHUNK, CHUNK, CHUNK, USAGE, SUCCESS],
    # Without --yolo the shell tool is not offered to the model: no tool records, no approval.
    "gemini-prompt-tool-default-approval.jsonl": [INIT, USER, CHUNK, CHUNK, CHUNK, CHUNK, USAGE, SUCCESS],
    "gemini-prompt-tool-yolo.jsonl": [
        INIT,
        USER,
        ("generating", "type=tool_use"),
        ("generating", "type=tool_result"),
        CHUNK,
        CHUNK,
        CHUNK,
        CHUNK,
        USAGE,
        SUCCESS,
    ],
    "gemini-prompt-api-error400.jsonl": [INIT, USER, USAGE, ("error", "type=result status=error")],
}


def fixture_lines(name: str) -> list[bytes]:
    return [line for line in (FIXTURES / name).read_bytes().splitlines() if line]


def parse_all(name: str) -> list[ParseResult]:
    return [GeminiHeadless(SOURCE).feed(line) for line in fixture_lines(name)]


def events_of(name: str) -> list:
    return [event for result in parse_all(name) for event in result.events]


def test_the_source_is_the_hosts_headless_stdout() -> None:
    assert HEADLESS_SOURCE == "headless"
    assert SOURCE == CORE_HEADLESS_SOURCE


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recorded_run_gives_its_event_sequence(name: str) -> None:
    results = parse_all(name)
    # One event per line (the result's usage aside), none of them an approval: a headless run
    # never waits for a person.
    assert all(len([e for e in result.events if e.kind != "usage_reported"]) == 1 for result in results)
    assert [(event.kind, event.evidence.rule) for result in results for event in result.events] == EXPECTED[name]
    assert all(event.evidence.source == "headless" for result in results for event in result.events)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_session_id_is_the_one_init_carries(name: str) -> None:
    init = json.loads(fixture_lines(name)[0])
    assert init["type"] == "init"
    started = [event for event in events_of(name) if event.kind == "session_started"]
    assert [event.session_id for event in started] == [init["session_id"]]


def test_the_evidence_is_the_line_itself() -> None:
    line = fixture_lines("gemini-prompt-tool-yolo.jsonl")[2]
    (used,) = GeminiHeadless(SOURCE).feed(line).events
    assert used.evidence.line == line.decode()


def test_the_api_error_ends_the_run_with_the_servers_message() -> None:
    raw = json.loads(fixture_lines("gemini-prompt-api-error400.jsonl")[-1])["error"]["message"]
    assert raw.startswith("[API Error: {") and "mock error 400 requested" in raw
    last = events_of("gemini-prompt-api-error400.jsonl")[-1]
    assert last.kind == "error"
    # The inner message of the JSON Gemini wraps, not the wrapper.
    assert last.message == "mock error 400 requested"


def test_a_failed_result_without_an_error_object_falls_back_to_its_status() -> None:
    (failed,) = GeminiHeadless(SOURCE).feed(b'{"type":"result","status":"error","stats":{}}').events
    assert (failed.kind, failed.message) == ("error", "error")
    (plain,) = GeminiHeadless(SOURCE).feed(b'{"type":"result","status":"error","error":{"message":"quota"}}').events
    assert plain.message == "quota"


def test_error_records_fail_the_run_but_warnings_do_not() -> None:
    record = {"type": "error", "timestamp": "t", "severity": "error", "message": "retry budget exhausted"}
    (failed,) = GeminiHeadless(SOURCE).feed(json.dumps(record).encode()).events
    assert (failed.kind, failed.evidence.rule, failed.message) == (
        "error",
        "type=error severity=error",
        "retry budget exhausted",
    )
    warning = {"type": "error", "severity": "warning", "message": "Loop detected, stopping execution"}
    assert GeminiHeadless(SOURCE).feed(json.dumps(warning).encode()) == ParseResult(at_rest=True)


def test_a_failed_tool_is_still_the_model_at_work() -> None:
    record = {"type": "tool_result", "tool_id": "x", "status": "error", "error": {"type": "t", "message": "denied"}}
    assert [event.kind for event in GeminiHeadless(SOURCE).feed(json.dumps(record).encode()).events] == ["generating"]


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"not json",
        b"[1]",
        b'{"type":"unknown"}',
        b'{"type":"init"}',
        b'{"type":"init","session_id":7}',
        b'{"type":"message","role":"system","content":"x"}',
        b'{"type":"message"}',
        b'{"type":"result"',
        b"\xff\xfe{",
        b'{"type":["init"]}',
    ],
)
def test_malformed_or_unknown_lines_give_nothing(line: bytes) -> None:
    assert GeminiHeadless(SOURCE).feed(line) == ParseResult(at_rest=True)


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"result","status":"error","error":{"message":"[API Error: {\\"error\\": 5}]"}}',
        b'{"type":"result","status":"error","error":{"message":"[API Error: {not json}]"}}',
        b'{"type":"result","status":"error","error":{"message":"[API Error: [1]]"}}',
        b'{"type":"result","status":"error","error":"plain text"}',
        b'{"type":"error","message":["x"]}',
    ],
)
def test_odd_error_shapes_still_give_one_error(line: bytes) -> None:
    (failed,) = GeminiHeadless(SOURCE).feed(line).events
    assert failed.kind == "error"
    assert failed.message is None or isinstance(failed.message, str)
