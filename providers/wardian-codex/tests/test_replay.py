"""`wardian providers replay codex <file>` on every recorded transcript: the timeline a user sees."""

import json
from functools import partial
from pathlib import Path

import pytest
import wardian_cli
from wardian_cli import dialog_answers, transitions

FIXTURES = Path(__file__).parent / "fixtures"
replay = partial(wardian_cli.replay, "codex")


HEADLESS = {
    "shared/codex-exec-json.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "shared/codex-exec-resume-json.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "shared/codex-exec-tool-json.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "shared/codex-exec-api-error400.jsonl": [("processing", "turn_started"), ("error", "error")],
    "recordings/codex-headless.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "recordings/codex-headless-resume.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "recordings/codex-headless-tool.jsonl": [("processing", "turn_started"), ("idle", "turn_completed")],
    "recordings/codex-headless-api-error400.jsonl": [("processing", "turn_started"), ("error", "error")],
}

# A PTY recording alone has no rollout, so no turn: an answered dialog returns to idle, the
# status it had when the dialog opened (live, the rollout's task_started made it processing).
ANSWERED_DIALOG = [("idle", "ready"), ("action_required", "approval_requested"), ("idle", "approval_resolved")]
TERMINAL = {
    "shared/codex-tui.raw": ANSWERED_DIALOG,
    "shared/codex-tui-resume.raw": [("idle", "ready")],
    # Ends as the status line shows, before the idle signal: alone it is not ready yet, as a
    # trust question may still come until Codex starts its thread (a file this replay lacks).
    "recordings/codex-tui-ready.raw": [],
    "recordings/codex-tui.raw": [("idle", "ready")],
    "recordings/codex-tui-approval.raw": ANSWERED_DIALOG,
    "codex-tui-approval-rejected-then-approved.raw": [
        *ANSWERED_DIALOG,
        ("action_required", "approval_requested"),
        ("idle", "approval_resolved"),
    ],
    # Codex draws its status line before its trust question: not ready until it signals its
    # session idle (or its status line stood 3 s after it started its thread, which a PTY
    # recording alone does not show; these end before the signal).
    "codex-tui-trust-dialog.raw": [("action_required", "approval_requested")],
    # Answered with a trust: told only once Codex starts its thread, a file this replay lacks
    # (a refusal's chat view can stand as long before its command center).
    "codex-tui-trust-answered.raw": [("action_required", "approval_requested")],
    # Refused: Codex's command center, never the workspace's prompt.
    "codex-tui-trust-rejected.raw": [("action_required", "approval_requested"), ("starting", "approval_resolved")],
    "codex-tui-resume-thread.raw": [("idle", "ready")],
}
# How each dialog was left, read from the screen.
ANSWERS = {
    "recordings/codex-tui-approval.raw": [("exec", "accepted")],
    "codex-tui-approval-rejected-then-approved.raw": [("exec", "rejected"), ("exec", "accepted")],
    "codex-tui-trust-rejected.raw": [("trust", "rejected")],
}


@pytest.mark.parametrize("name", sorted(HEADLESS))
def test_headless_transcript_replays_to_its_statuses(name: str) -> None:
    timeline = replay(FIXTURES / name, "--source", "headless")
    assert transitions(timeline) == HEADLESS[name]
    started = [e["event"] for e in timeline if e["type"] == "event" and e["event"]["kind"] == "session_started"]
    assert (
        started and started[0]["session_id"] == json.loads((FIXTURES / name).read_text().splitlines()[0])["thread_id"]
    )


@pytest.mark.parametrize("name", sorted(TERMINAL))
@pytest.mark.parametrize(("chunk_size", "gap"), [("512", "0.3"), ("7", "0.005")])
def test_terminal_transcript_replays_to_its_statuses(name: str, chunk_size: str, gap: str) -> None:
    # About the same bytes a second either way: a recording keeps no timing, and tiny reads
    # far apart would stretch a screen that lasted a moment past a settle delay.
    timeline = replay(FIXTURES / name, "--chunk-size", chunk_size, "--gap", gap)
    assert transitions(timeline) == TERMINAL[name]


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_terminal_transcript_replays_the_answer_of_each_dialog(name: str) -> None:
    # A recording keeps no timing. Reads of 512 bytes a quarter second apart: Esc on the trust
    # dialog flashes the chat view for ~50 ms before the command center, which tiny reads would
    # stretch past the settle delay; larger ones would hold a whole dialog in one read.
    timeline = replay(FIXTURES / name, "--chunk-size", "512", "--gap", "0.25")
    assert dialog_answers(timeline) == ANSWERS[name]


def test_rollout_replays_turns_an_approved_and_a_refused_command_and_an_api_error() -> None:
    timeline = replay(FIXTURES / "codex-rollout-turns-approval-reject-error.jsonl", "--source", "rollout", "--gap", "1")
    assert transitions(timeline) == [
        ("processing", "turn_started"),
        ("idle", "turn_completed"),
        ("processing", "turn_started"),
        ("idle", "turn_completed"),
        ("processing", "turn_started"),
        ("idle", "turn_completed"),
        ("processing", "turn_started"),
        ("error", "error"),
    ]
    statuses = [e for e in timeline if e["type"] == "status"]
    assert statuses[-1]["evidence"]["rule"] == "event_msg/task_complete with error"
    aborted = statuses[-3]["evidence"]
    assert aborted["rule"] == "event_msg/turn_aborted"
