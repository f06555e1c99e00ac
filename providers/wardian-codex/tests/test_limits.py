"""Codex's usage limit, as 0.171.0 recorded it against the model server's ChatGPT-backend answer
(429 `usage_limit_reached`, `x-codex-*` windows): the rollout's cut turns, the screen's popup,
and how the turn goes on."""

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wardian_codex import limits, plugin
from wardian_core.provider import LimitReport, LimitResume, OutputSource
from wardian_core.provider.testing import Plugins, Terminal, kinds, next_status

FIXTURES = Path(__file__).parent / "fixtures"
# Two turns cut by the 5-hour window (resets 1796185881, then 1796185873), then `continue`, answered.
ROLLOUT = FIXTURES / "codex-rollout-usage-limit.jsonl"
ROLLOUT_SOURCE = OutputSource(name="rollout", kind="file", path=ROLLOUT)
# The TUI at the first cut: the message, then the switch-model popup.
POPUP = (FIXTURES / "codex-tui-usage-limit-popup.raw").read_bytes()
NOW = datetime(2026, 12, 2, 3, 31, 30, tzinfo=UTC)


def rollout_events(lines: list[bytes], make_ctx) -> list:
    parser = plugin.parse_output(ctx=make_ctx(), source=ROLLOUT_SOURCE)
    return [event for line in lines for event in parser.feed(line).events if event.kind != "usage_reported"]


def test_a_cut_turn_is_limit_reached_with_the_exact_reset_of_the_window_that_ran_out(make_ctx) -> None:
    events = rollout_events(ROLLOUT.read_bytes().splitlines(), make_ctx)

    assert kinds(events) == [
        "session_started",
        *["turn_started", "limit_reached"] * 2,
        "turn_started",
        "turn_completed",
    ]
    first, second = (event for event in events if event.kind == "limit_reached")
    assert first.limit is not None and second.limit is not None
    # The 5-hour window (primary, 300 minutes) at 100%, each reset as the server gave it.
    assert (first.limit.kind, first.limit.resets_at) == ("session", "2026-12-02T04:31:21Z")
    assert (second.limit.kind, second.limit.resets_at) == ("session", "2026-12-02T04:31:13Z")
    assert first.limit.message == (
        "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
        "https://chatgpt.com/settings/usage to purchase more credits or try again at 4:31 AM."
    )
    assert (first.evidence.source, first.evidence.rule) == ("rollout", "event_msg/task_complete usage limit")
    assert first.turn is not None and first.turn != second.turn
    # Not a failure: the agent rests, its limit on the record, where Wardian said `error` before.
    assert next_status("processing", "limit_reached") == "idle"


def test_the_weekly_window_is_a_weekly_limit_and_the_later_reset_of_two_wins(make_ctx) -> None:
    lines = ROLLOUT.read_bytes().splitlines()
    count_line, cut_line = lines[9], lines[10]
    # Both windows used up: the week's resets after the 5-hour one's (in 7 days), or before it.
    weekly = json.loads(count_line)
    weekly["payload"]["rate_limits"]["secondary"] |= {"used_percent": 100.0, "resets_at": 1796790000}
    both = json.loads(json.dumps(weekly))
    both["payload"]["rate_limits"]["secondary"]["resets_at"] = 1796180000

    [by_week] = rollout_events([json.dumps(weekly).encode(), cut_line], make_ctx)
    [by_both] = rollout_events([json.dumps(both).encode(), cut_line], make_ctx)

    assert by_week.limit is not None and (by_week.limit.kind, by_week.limit.resets_at) == (
        "weekly",
        "2026-12-09T04:20:00Z",
    )
    assert by_both.limit is not None and (by_both.limit.kind, by_both.limit.resets_at) == (
        "session",
        "2026-12-02T04:31:21Z",
    )


def test_without_a_window_the_reset_is_the_messages_local_time(make_ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        today = limits.reset_in_message("… or try again at 9:45 PM.", NOW)
        past_today = limits.reset_in_message("… or try again at 4:05 AM.", NOW)  # 03:05 UTC: gone
        dated = limits.reset_in_message("… or try again at Dec 3rd, 2026 4:28 AM.", NOW)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert (today, past_today, dated) == ("2026-12-02T20:45:00Z", "2026-12-03T03:05:00Z", "2026-12-03T03:28:00Z")

    cut = ROLLOUT.read_bytes().splitlines()[10]  # no token_count before it: no window is known
    [event] = rollout_events([cut], make_ctx)
    assert event.limit is not None and event.limit.kind == "usage" and event.limit.resets_at is not None


def test_an_error_event_naming_the_usage_limit_cuts_the_turn_too(make_ctx) -> None:
    line = {
        "type": "event_msg",
        "payload": {"type": "error", "message": "m", "codex_error_info": "usage_limit_exceeded"},
    }
    other = {"type": "event_msg", "payload": {"type": "error", "message": "m", "codex_error_info": "other"}}

    assert kinds(rollout_events([json.dumps(line).encode(), json.dumps(other).encode()], make_ctx)) == [
        "limit_reached",
        "error",
    ]


def test_the_popup_is_no_dialog_and_no_readiness_on_the_screen(make_ctx) -> None:
    """The rollout tells the limit; the popup on screen changes no status (the resume's Esc
    closes it). Before it, the prompt's screen said ready once, as any start does."""
    events = Terminal(plugin, make_ctx).feed(POPUP)
    assert "approval_requested" not in kinds(events) and "error" not in kinds(events)


def test_the_resume_presses_esc_before_it_types_continue(make_ctx) -> None:
    """Through the host's own call of the hook: Esc closes the popup on the current model (Enter
    would take "1. Switch to gpt-6-luna"), then `continue` is typed as a prompt."""
    plugins = Plugins()
    plugins.register(plugin, "codex")
    limit = LimitReport(kind="session", resets_at="2026-12-02T04:31:21Z")

    assert plugins.limit_resume("codex", make_ctx(), limit) == LimitResume(how="text", keys=["escape"], text="continue")
