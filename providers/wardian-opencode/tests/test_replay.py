"""`wardian providers replay opencode <file>` on every recorded transcript: the timeline a user sees."""

import json
from functools import partial
from pathlib import Path

import pytest
import wardian_cli
from wardian_cli import TURN, dialog_answers, transitions

FIXTURES = Path(__file__).parent / "fixtures"
replay = partial(wardian_cli.replay, "opencode")


HEADLESS = {
    "shared/opencode-run-json.jsonl": TURN,
    "shared/opencode-run-session-resume-json.jsonl": TURN,
    "shared/opencode-run-tool-json.jsonl": TURN,
    # `run` refused the tool that asked and ended: the exit (not in a file) is what ends it live.
    "shared/opencode-run-tool-ask-autoreject-json.jsonl": TURN[:1],
    "shared/opencode-run-api-error400.jsonl": [("error", "error")],
}
ASKED = [("action_required", "approval_requested"), ("processing", "approval_resolved")]
EVENTS = {
    "recordings/opencode-events-turn.sse": TURN,
    "recordings/opencode-events-approval.sse": [*TURN[:1], *ASKED, TURN[1], *TURN[:1], *ASKED, TURN[1]],
    "recordings/opencode-events-api-replies.sse": [
        *(TURN[:1] + ASKED + TURN[1:]) * 3,
        *TURN,
        *TURN[:1],
        *ASKED,
        TURN[1],
    ],
    "recordings/opencode-events-api-error.sse": [("processing", "turn_started"), ("error", "error")],
    # A limit retried past (no status of its own), one given up on (idle, not error), `continue`.
    "recordings/opencode-events-limit.sse": [
        *TURN,
        *TURN,
        ("processing", "turn_started"),
        ("idle", "limit_reached"),
        *TURN,
    ],
    "recordings/opencode-events-limit-day-ahead.sse": TURN[:1],
}
# A recording of the TUI alone has no event stream: ready, and no turn. Its permission panels
# were answered within a second: in reads of 512 bytes 0.3 s apart they never settle (the stream
# tells of them live); in reads of 7 bytes they stay long enough to be the screen's.
PANEL = [("action_required", "approval_requested"), ("idle", "approval_resolved")]
TERMINAL = {
    ("shared/opencode-tui.raw", 512): [("idle", "ready")],
    ("shared/opencode-tui.raw", 7): [("idle", "ready"), *PANEL],
    ("shared/opencode-tui-resume.raw", 512): [("idle", "ready")],
    ("shared/opencode-tui-resume.raw", 7): [("idle", "ready")],
    ("recordings/opencode-tui-approval.raw", 512): [("idle", "ready")],
    ("recordings/opencode-tui-approval.raw", 7): [("idle", "ready"), *PANEL, *PANEL],
}


def test_every_recorded_transcript_is_replayed() -> None:
    kept = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.suffix in (".raw", ".jsonl", ".sse")}
    assert kept == set(HEADLESS) | set(EVENTS) | {name for name, _ in TERMINAL}


@pytest.mark.parametrize("name", sorted(HEADLESS))
def test_headless_transcript_replays_to_its_statuses(name: str) -> None:
    timeline = replay(FIXTURES / name, "--source", "headless")
    assert transitions(timeline) == HEADLESS[name]
    started = [e["event"] for e in timeline if e["type"] == "event" and e["event"]["kind"] == "session_started"]
    assert started[0]["session_id"] == json.loads((FIXTURES / name).read_text().splitlines()[0])["sessionID"]


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_event_stream_replays_to_its_statuses_by_the_servers_events(name: str) -> None:
    timeline = replay(FIXTURES / name, "--source", "opencode-events", "--gap", "0.05")
    assert transitions(timeline) == EVENTS[name]
    sources = {entry["evidence"]["source"] for entry in timeline if entry["type"] == "status" and entry["evidence"]}
    assert sources == {"opencode-events"}


def test_event_stream_replays_the_answer_of_each_permission() -> None:
    timeline = replay(FIXTURES / "recordings/opencode-events-approval.sse", "--source", "opencode-events")
    assert dialog_answers(timeline) == [("permission", "accepted"), ("permission", "rejected")]


@pytest.mark.parametrize(("name", "chunk_size"), sorted(TERMINAL))
def test_terminal_transcript_replays_to_its_statuses(name: str, chunk_size: int) -> None:
    timeline = replay(FIXTURES / name, "--chunk-size", str(chunk_size), "--gap", "0.3")
    assert transitions(timeline) == TERMINAL[(name, chunk_size)]
