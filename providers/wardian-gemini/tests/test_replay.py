"""`wardian providers replay gemini <file>` on every recorded transcript: the timeline a user sees."""

import json
from functools import partial
from pathlib import Path

import pytest
import wardian_cli
from wardian_cli import TURN, dialog_answers, transitions

from wardian_core.provider import PTY_SOURCE
from wardian_core.provider.parsing import ScreenSnapshot
from wardian_gemini import tui

FIXTURES = Path(__file__).parent / "fixtures"
replay = partial(wardian_cli.replay, "gemini")


HEADLESS = {
    "shared/gemini-prompt-stream-json.jsonl": TURN,
    "shared/gemini-prompt-resume-stream-json.jsonl": TURN,
    "shared/gemini-prompt-tool-default-approval.jsonl": TURN,
    "shared/gemini-prompt-tool-yolo.jsonl": TURN,
    "shared/gemini-prompt-api-error400.jsonl": [("processing", "turn_started"), ("error", "error")],
    # `--output-format json`: one object at the end, no events Wardian reads.
    "shared/gemini-prompt-json.json": [],
}
# A recording has no hook log: the prompt alone is ready ("ready prompt"), and no turn is seen;
# an answered dialog returns to the status it had (here idle: a tool's turn is the hooks').
ANSWERED_DIALOG = [("idle", "ready"), ("action_required", "approval_requested"), ("idle", "approval_resolved")]
TERMINAL = {
    "shared/gemini-tui.raw": ANSWERED_DIALOG,  # a tool call, allowed
    "shared/gemini-tui-resume.raw": ANSWERED_DIALOG,  # --include-directories: the trust dialog, answered
    "recordings/gemini-tui-tool-accepted.raw": ANSWERED_DIALOG,
    # Drawn after the prompt in these recordings (no hook held the ready back).
    "recordings/gemini-tui-trust-accepted.raw": ANSWERED_DIALOG,
    "recordings/gemini-tui-trust-rejected.raw": ANSWERED_DIALOG,
    # The workspace's own question, drawn over the prompt of a folder the user never decided on.
    "recordings/gemini-tui-workspace-trust-accepted.raw": ANSWERED_DIALOG,
    "recordings/gemini-tui-workspace-trust-rejected.raw": ANSWERED_DIALOG,
    # A turn cut with Esc: its "Request cancelled." ends it (turn_completed), idle already here.
    "recordings/gemini-tui-hard-budget-cut.raw": [("idle", "ready")],
}
ANSWERS = {
    "shared/gemini-tui.raw": [("tool", None)],
    "shared/gemini-tui-resume.raw": [("trust", "accepted")],
    "recordings/gemini-tui-trust-accepted.raw": [("trust", "accepted")],
    "recordings/gemini-tui-trust-rejected.raw": [("trust", "rejected")],
    "recordings/gemini-tui-workspace-trust-accepted.raw": [("workspace_trust", "accepted")],
    "recordings/gemini-tui-workspace-trust-rejected.raw": [("workspace_trust", "rejected")],
}

# Screens recorded as `wardian agent screen` rows (no bytes to replay), each read by a ready agent's
# screen parser: the events it tells. The usage-limit dialog cuts a turn (no hook tells of it);
# once Stop was picked and `continue` typed, the prompt is back and says nothing new.
SCREENS = {
    "recordings/gemini-tui-usage-limit.json": {
        "pro_dialog": ["limit_reached"],
        "flash_dialog": ["limit_reached"],
        "after_stop_and_continue": [],
    },
}


def test_every_recorded_transcript_is_replayed() -> None:
    recorded = {
        p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.suffix in (".raw", ".jsonl", ".json")
    }
    assert recorded == set(HEADLESS) | set(TERMINAL) | set(SCREENS)


@pytest.mark.parametrize("name", sorted(HEADLESS))
def test_headless_transcript_replays_to_its_statuses(name: str) -> None:
    timeline = replay(FIXTURES / name, "--source", "headless")
    assert transitions(timeline) == HEADLESS[name]
    if HEADLESS[name]:
        started = [e["event"] for e in timeline if e["type"] == "event" and e["event"]["kind"] == "session_started"]
        assert started[0]["session_id"] == json.loads((FIXTURES / name).read_text().splitlines()[0])["session_id"]


@pytest.mark.parametrize("name", sorted(TERMINAL))
@pytest.mark.parametrize("chunk_size", [512, 7])
def test_terminal_transcript_replays_to_its_statuses(name: str, chunk_size: int) -> None:
    timeline = replay(FIXTURES / name, "--chunk-size", str(chunk_size), "--gap", "0.3")
    assert transitions(timeline) == TERMINAL[name]


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_terminal_transcript_replays_the_answer_of_each_dialog(name: str) -> None:
    timeline = replay(FIXTURES / name, "--chunk-size", "512", "--gap", "0.3")
    assert dialog_answers(timeline) == ANSWERS[name]


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_recorded_screen_tells_its_events(name: str) -> None:
    recorded = json.loads((FIXTURES / name).read_text())
    told = {}
    for screen in SCREENS[name]:
        parser = tui.GeminiScreen(PTY_SOURCE)
        parser.ready = True
        size = {"rows": len(recorded[screen]["rows"]), "cols": 120}
        snapshot = ScreenSnapshot(rows=recorded[screen]["rows"], cursor={"row": 0, "col": 0}, title="", size=size)
        told[screen] = [event.kind for event in parser.screen(snapshot).events]
    assert told == SCREENS[name]
