"""`wardian providers replay claude FILE` on every recorded fixture, as a maintainer would run it."""

from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

PTY_FILES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.raw"))
HEADLESS_FILES = sorted(
    p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.json*") if "limits" not in p.parts
)
HOOK_FILES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("claude-hooks-*.log"))
# A usage limit's hooks and transcript (interactive sources, not headless runs).
LIMIT_HOOK_FILES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("limits/*-hooks.jsonl"))
LIMIT_TRANSCRIPTS = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("limits/*-transcript.jsonl"))


def statuses(lines: list[dict]) -> list[tuple[str, str, str | None]]:
    return [
        (line["to"], line["event"], (line["evidence"] or {}).get("source"))
        for line in lines
        if line["type"] == "status"
    ]


def test_every_fixture_is_replayed() -> None:
    replayed = set(PTY_FILES) | set(HEADLESS_FILES) | set(HOOK_FILES) | set(LIMIT_HOOK_FILES)
    replayed |= set(LIMIT_TRANSCRIPTS)  # read by test_limits.py, whose clock keeps their limits ahead
    recorded = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()}
    # claude.txt is `--help`; the *.txt files are the *.raw ones with escapes stripped.
    assert recorded - replayed == {p for p in recorded if p.endswith(".txt")}


@pytest.mark.parametrize("fixture", PTY_FILES)
def test_replayed_tui_reaches_idle_on_the_ready_prompt(wardian: Callable, fixture: str) -> None:
    lines = wardian("providers", "replay", "claude", str(FIXTURES / fixture), "--chunk-size", "61").lines()

    assert statuses(lines)[1] == ("idle", "ready", "pty")


@pytest.mark.parametrize("fixture", LIMIT_HOOK_FILES)
def test_replayed_limit_hooks_never_end_in_error(wardian: Callable, fixture: str) -> None:
    lines = wardian("providers", "replay", "claude", str(FIXTURES / fixture), "--source", "claude-hooks").lines()

    walked = statuses(lines)
    assert "error" not in [to for to, _, _ in walked], walked
    if "key-far" in fixture:  # no reset: the hook tells the limit, and the turn rests
        assert ("idle", "limit_reached", "claude-hooks") in walked


@pytest.mark.parametrize("fixture", [f for f in HEADLESS_FILES if "error" not in f])
def test_replayed_headless_run_ends_idle_with_turn_completed(wardian: Callable, fixture: str) -> None:
    lines = wardian("providers", "replay", "claude", str(FIXTURES / fixture), "--source", "headless").lines()

    assert statuses(lines)[-1] == ("idle", "turn_completed", "headless")
    assert "error" not in [to for to, _, _ in statuses(lines)]


@pytest.mark.parametrize("fixture", [f for f in HEADLESS_FILES if "error" in f])
def test_replayed_api_error_ends_in_error(wardian: Callable, fixture: str) -> None:
    lines = wardian("providers", "replay", "claude", str(FIXTURES / fixture), "--source", "headless").lines()

    assert statuses(lines)[-1] == ("error", "error", "headless")
    assert lines[-1]["evidence"]["rule"] == "result is_error"


def test_replayed_tui_hook_log_walks_through_the_approval(wardian: Callable) -> None:
    lines = wardian(
        "providers", "replay", "claude", str(FIXTURES / "claude-hooks-tui.log"), "--source", "claude-hooks"
    ).lines()

    assert statuses(lines)[1:] == [
        ("processing", "turn_started", "claude-hooks"),
        ("action_required", "approval_requested", "claude-hooks"),
        ("processing", "approval_resolved", "claude-hooks"),
        ("idle", "turn_completed", "claude-hooks"),
        ("off", "session_ended", "claude-hooks"),
    ]


def test_replayed_print_hook_log_has_two_turns(wardian: Callable) -> None:
    lines = wardian(
        "providers", "replay", "claude", str(FIXTURES / "claude-hooks-print.log"), "--source", "claude-hooks"
    ).lines()

    assert [to for to, _, _ in statuses(lines)][1:] == ["processing", "idle", "off", "processing", "idle", "off"]
