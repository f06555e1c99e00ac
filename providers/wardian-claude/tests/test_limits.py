"""Claude Code's usage limits read from what 2.1.197 and 2.1.332 recorded against the model
server answering as Anthropic does at a plan's limit (tests/fixtures/limits): the hooks, the
transcript and the screen, and how the cut turn goes on."""

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from wardian_claude import limits, parser
from wardian_claude.tui import ClaudeScreen
from wardian_core.provider import PTY_SOURCE, LimitReport, LimitResume, OutputSource, SpawnContext
from wardian_core.provider.testing import ScreenModel, rests_of, spawn_context

LIMITS = Path(__file__).parent / "fixtures" / "limits"
HOOKS = OutputSource(name="claude-hooks", path=Path("hooks.jsonl"))
TRANSCRIPT = OutputSource(name="claude-transcript", path=Path("t.jsonl"))
# When the recordings were made: the limits they carry were still ahead.
RECORDED = datetime(2026, 12, 2, 3, 22, tzinfo=UTC)


def context(session_id: str) -> SpawnContext:
    """An agent whose folders are the recordings' own (read, never written)."""
    folders = {"workspace": LIMITS, "wardian_home": LIMITS, "agent_dir": LIMITS}
    return spawn_context(LIMITS, "claude", **folders, provider_session_id=session_id)


def hook_events(fixture: str) -> list[Any]:
    lines = (LIMITS / fixture).read_bytes().splitlines()
    session = json.loads(lines[0])["session_id"]
    source_parser = parser.parser_for(context(session), HOOKS)
    return [event for line in lines for event in source_parser.feed(line).events]


def transcript_at(now: datetime) -> Callable[[], limits.ClaudeTranscript]:
    """A maker of transcript parsers whose clock says `now`."""
    return lambda: limits.ClaudeTranscript(TRANSCRIPT, clock=lambda: now)


def transcript_events(fixture: str, now: datetime = RECORDED) -> list[Any]:
    transcript = limits.ClaudeTranscript(TRANSCRIPT, clock=lambda: now)
    lines = (LIMITS / fixture).read_bytes().splitlines()
    return [event for line in lines for event in transcript.feed(line).events]


def kinds(events: list[Any]) -> list[str]:
    return [event.kind for event in events]


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_a_plan_limit_is_no_error_in_the_hooks_the_transcript_tells_it(version: str) -> None:
    # The StopFailure hook says `error: "rate_limit"`: today's `error` is gone, the transcript tells the limit.
    assert kinds(hook_events(f"claude-{version}-plan-hooks.jsonl")) == [
        "session_started",
        "turn_started",
        "session_ended",
    ]


def test_2_1_332_signed_in_gives_the_exact_reset_and_continues_by_itself() -> None:
    reached, continuing = transcript_events("claude-2.1.332-plan-transcript.jsonl")

    assert (reached.kind, reached.evidence.rule) == ("limit_reached", "transcript quotaLimits")
    assert reached.limit == LimitReport(
        kind="session",
        resets_at="2026-12-02T05:21:45Z",
        message="You've hit your 5-hour limit · resets 5:21am (UTC)",
    )
    assert (continuing.kind, continuing.evidence.rule) == ("limit_reached", "transcript auto-continue")
    assert continuing.evidence.line == "Usage limit reached · set to continue automatically at 5:21am"
    assert continuing.limit.retry_at == continuing.limit.resets_at == "2026-12-02T05:21:45Z"
    # It continues by itself at the reset ("Esc to cancel"): Wardian waits, types nothing.
    assert limits.limit_resume(continuing.limit) == LimitResume(how="wait", text=None)


def test_2_1_197_signed_in_gives_the_reset_to_the_minute_and_waits_behind_its_menu() -> None:
    [reached] = transcript_events("claude-2.1.197-plan-transcript.jsonl")

    assert (reached.kind, reached.evidence.rule) == ("limit_reached", "transcript limit message")
    assert reached.limit == LimitReport(
        kind="session", resets_at="2026-12-02T05:24:00Z", message="You've hit your session limit · resets 5:23am (UTC)"
    )
    # Esc leaves "1. Stop and wait / 2. Upgrade your plan" without upgrading, then the turn goes on.
    assert limits.limit_resume(reached.limit) == LimitResume(how="text", keys=["escape"], text="continue")


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_a_limit_already_reset_is_history_when_the_transcript_is_read_again(version: str) -> None:
    later = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
    assert transcript_events(f"claude-{version}-plan-transcript.jsonl", now=later) == []


def test_the_transcript_rests_but_while_a_limit_awaits_its_note_and_a_resume_reads_the_same() -> None:
    """A next host replays the transcript from its parser's last rest (wardian_host.testing.rests)."""
    answer = {"type": "assistant", "message": {"id": "msg_1", "model": "claude-x", "usage": {"input_tokens": 9}}}
    lines = [*(LIMITS / "claude-2.1.332-plan-transcript.jsonl").read_bytes().splitlines(), json.dumps(answer).encode()]

    # The prompt and a message's usage need nothing read before; the limit is needed by its note.
    assert rests_of(transcript_at(RECORDED), lines) == [True, False, True, True]


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_a_limit_read_after_its_reset_still_ends_the_turn_it_cut(version: str) -> None:
    """A reset due seconds after the prompt can pass before a loaded machine reads the line that
    tells it (cc31: the agent stayed `processing` until 2.1.332 went on by itself). Written while
    the reader watched, the line still tells the limit, and 2.1.332's note after it still finds it."""
    now = [datetime(2026, 12, 2, 3, 0, tzinfo=UTC)]  # the reader starts before the turn
    transcript = limits.ClaudeTranscript(TRANSCRIPT, clock=lambda: now[0])
    now[0] = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)  # every line is read after its reset
    lines = (LIMITS / f"claude-{version}-plan-transcript.jsonl").read_bytes().splitlines()
    events = [event for line in lines for event in transcript.feed(line).events]

    reached, *continuing = events
    limit = reached.limit
    assert reached.kind == "limit_reached" and limit is not None and limit.kind == "session"
    assert (limit.resets_at or "") < "2026-12-02T06:00:00Z"  # already reset: the host resumes at once
    if version == "2.1.332":  # it goes on by itself: Wardian waits, types nothing
        [note] = continuing
        assert note.evidence.rule == "transcript auto-continue" and note.limit is not None
        assert limits.limit_resume(note.limit) == LimitResume(how="wait", text=None)
    else:  # behind its menu: Wardian leaves it and types `continue`
        assert continuing == [] and limits.limit_resume(limit).text == "continue"
    assert transcript.feed(lines[0]).rests() and transcript.last is None, "forgotten at the next line"


def test_a_limit_written_as_its_reset_came_still_ends_the_turn_and_its_note_waits_for_claude() -> None:
    """cc33: a reset due 5 s after the prompt came in the second 2.1.332 wrote its limit (the
    model call was 4.9 s late on a loaded machine); it wrote "set to continue automatically
    shortly" and went on by itself. The limit still ended the turn."""
    lines = (LIMITS / "claude-2.1.332-plan-transcript.jsonl").read_bytes().splitlines()
    limited = json.loads(lines[1])
    limited["quotaLimits"]["resetsAt"] = int(datetime.fromisoformat(limited["timestamp"]).timestamp())
    note = json.loads(lines[2]) | {"content": "Usage limit reached · set to continue automatically shortly"}
    transcript = limits.ClaudeTranscript(TRANSCRIPT, clock=lambda: RECORDED - timedelta(minutes=1))
    events = [
        event
        for line in [lines[0], json.dumps(limited).encode(), json.dumps(note).encode()]
        for event in transcript.feed(line).events
    ]

    reached, continuing = events
    assert reached.kind == "limit_reached" and reached.limit is not None
    assert reached.limit.resets_at == limited["timestamp"][:19] + "Z"
    assert continuing.evidence.rule == "transcript auto-continue" and continuing.limit is not None
    assert limits.limit_resume(continuing.limit) == LimitResume(how="wait", text=None)


def test_a_limit_once_reset_is_forgotten_so_a_transcript_without_its_note_rests_again() -> None:
    now = [RECORDED]
    transcript = limits.ClaudeTranscript(TRANSCRIPT, clock=lambda: now[0])
    lines = (LIMITS / "claude-2.1.197-plan-transcript.jsonl").read_bytes().splitlines()
    # 2.1.197 writes no note: its limit is held until it reset (5:24), then a new parser holds none either.
    assert [transcript.feed(line).rests() for line in lines] == [True, False, False]
    now[0] = datetime(2026, 12, 2, 5, 24, tzinfo=UTC)
    assert transcript.feed(lines[0]).rests() and transcript.last is None
    # Read again after the reset, the limit is history: every line a rest.
    assert rests_of(transcript_at(now[0]), lines) == [True] * 3


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_an_api_keys_limit_far_ahead_is_a_rate_limit_with_no_reset_from_the_hook(version: str) -> None:
    events = hook_events(f"claude-{version}-key-far-hooks.jsonl")

    assert kinds(events) == ["session_started", "turn_started", "limit_reached", "session_ended"]
    reached = events[2]
    assert reached.evidence.rule == "hook StopFailure"
    assert reached.limit.kind == "rate" and reached.limit.resets_at is None
    assert reached.limit.message.startswith("API Error: Request rejected (429) · This request would exceed")
    assert transcript_events(f"claude-{version}-key-far-transcript.jsonl") == []  # no reset: the hook's
    assert limits.limit_resume(reached.limit).text == "continue"


def test_another_stop_failure_is_still_an_error() -> None:
    line = b'{"session_id":"s","hook_event_name":"StopFailure","error":"unknown","last_assistant_message":"400"}'
    [event] = parser.parser_for(context("s"), HOOKS).feed(line).events
    assert event.kind == "error"


def screen_events(fixture: str) -> list[Any]:
    """The recorded TUI fed to the parser, the screen looked at whenever it asks."""
    raw = (LIMITS / fixture).read_bytes()
    screen, model, events = ClaudeScreen(PTY_SOURCE), ScreenModel(rows=40, cols=120), []
    for start in range(0, len(raw), 512):
        chunk = raw[start : start + 512]
        model.feed(chunk)
        result = screen.feed(chunk)
        events += result.events
        if result.want_screen:
            events += screen.screen(model.snapshot()).events
    return [event for event in events if event.kind.startswith("limit")]


@pytest.mark.parametrize(
    ("version", "said"),
    [
        # The first frame of the countdown: a later one said "21s".
        ("2.1.197", "Session limit reached · Retrying in 23s (3:24am) · attempt 1/10"),
        ("2.1.332", "5-hour limit reached · retrying in 45s (3:26am) · attempt 1/10"),
    ],
)
def test_an_api_keys_limit_within_a_minute_is_claude_retrying_by_itself_once_per_attempt(
    version: str, said: str
) -> None:
    before = datetime.now(UTC)
    [retrying] = screen_events(f"claude-{version}-key-retrying-tui.raw")

    assert (retrying.kind, retrying.evidence.rule) == ("limit_retrying", "limit retrying")
    assert retrying.limit.kind == "session" and retrying.limit.message == said
    seconds = int(said.split("in ")[1].split("s")[0])
    # The retry's time on the screen is a countdown: when it was read, plus its seconds.
    ahead = datetime.fromisoformat(retrying.limit.retry_at) - before
    assert timedelta(seconds=seconds - 1) <= ahead <= timedelta(seconds=seconds + 2)
    assert limits.limit_resume(retrying.limit).how == "wait"


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_a_limit_that_cut_the_turn_is_not_read_as_a_retry_on_screen(version: str) -> None:
    assert screen_events(f"claude-{version}-plan-tui.raw") == []


@pytest.mark.parametrize(
    ("said", "kind", "resets_at"),
    [
        ("You've hit your session limit · resets 9:57pm (UTC)", "session", "2026-12-02T21:58:00Z"),
        ("You've hit your session limit · resets 1:05am (UTC)", "session", "2026-12-03T01:06:00Z"),
        # The minute it was said in: a reset seconds ahead, not tomorrow's.
        ("You've hit your session limit · resets 3:22am (UTC)", "session", "2026-12-02T03:23:00Z"),
        ("You've hit your weekly limit · resets Dec 5, 5pm (Europe/Paris)", "weekly", "2026-12-05T16:01:00Z"),
        ("You've hit your Opus limit · resets 9am (America/New_York)", "weekly", "2026-12-02T14:01:00Z"),
        ("You've hit your session limit · resets 9:57pm (Mars/Olympus)", "session", None),
    ],
)
def test_a_reset_on_screen_is_the_end_of_the_next_such_minute(said: str, kind: str, resets_at: str | None) -> None:
    assert limits.kind_in_text(said) == kind
    assert limits.reset_in_text(said, RECORDED) == resets_at
