"""Gemini CLI 0.61.0 at a usage limit: its dialog read from the screen, and how Wardian continues.

The screens were recorded through `wardian` against the model server answering as Code Assist
does when a plan's quota ran out (`MOCK_LIMIT:QUOTA_EXHAUSTED`: 429 `RESOURCE_EXHAUSTED`, an
`ErrorInfo` and a `RetryInfo`): the dialog of a Pro model launched with `--model gemini-2.5-pro`,
the one of the model Gemini's router chose (gemini-3.8-flash), and the screen once Wardian had
picked "2. Stop" and typed `continue`.
"""

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wardian_core.provider import LimitReport, LimitResume, OutputSource
from wardian_core.provider.parsing import ScreenSnapshot
from wardian_gemini import home, limits, plugin, tui

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "recordings" / "gemini-tui-usage-limit.json").read_text())
PTY = OutputSource(name="pty", kind="pty")


def rows(name: str) -> list[str]:
    return list(RECORDED[name]["rows"])


def said_at(name: str) -> datetime:
    return datetime.fromisoformat(RECORDED[name]["said_at"])


def screen(lines: list[str]) -> ScreenSnapshot:
    return ScreenSnapshot(rows=lines, cursor={"row": 0, "col": 0}, title="", size={"rows": 40, "cols": 120})


def look(name: str, dialog: limits.LimitDialog) -> list:
    return dialog.look(PTY, [row.strip().strip("│").strip() for row in rows(name)], said_at(name))


def test_the_dialog_is_limit_reached_with_the_end_of_the_minute_shown_and_what_it_offers() -> None:
    [reached] = look("pro_dialog", limits.LimitDialog())

    assert (reached.kind, reached.evidence.source, reached.evidence.rule) == ("limit_reached", "pty", "limit dialog")
    assert reached.evidence.line == "Usage limit reached for all Pro models."
    # The server's reset was 03:51:09; Gemini shows "3:51 AM UTC", and 03:52:00 is when it surely passed.
    assert reached.limit == LimitReport(
        kind="usage",
        resets_at="2026-12-02T03:52:00Z",
        message="Usage limit reached for all Pro models. Access resets at 3:51 AM UTC. "
        "/stats model for usage details /model to switch models. 1. Keep trying 2. Stop",
    )


def test_the_routed_models_dialog_names_it_and_its_reset_minutes_ahead() -> None:
    [reached] = look("flash_dialog", limits.LimitDialog())

    assert reached.limit is not None
    assert reached.limit.message is not None and reached.limit.message.startswith(
        "Usage limit reached for gemini-3.8-flash. Access resets at 3:55 AM UTC."
    )
    assert reached.limit.resets_at == "2026-12-02T03:56:00Z"  # the server's 03:55:29, to the minute's end


def test_a_dialog_is_told_once_and_again_after_it_closed() -> None:
    state = limits.LimitDialog()

    first, redraw = look("pro_dialog", state), look("pro_dialog", state)
    closed = look("after_stop_and_continue", state)
    again = look("pro_dialog", state)

    assert (len(first), redraw, closed, len(again)) == (1, [], [], 1)


def test_the_tui_parser_reads_the_dialog_once_the_stream_draws_it() -> None:
    """Before this, the agent stayed `processing` behind the dialog: nothing read it."""
    parser = tui.GeminiScreen(PTY)
    parser.ready = True

    asked = parser.feed(b"\x1b[2;3HUsage\x1b[1Climit\x1b[1Creached\x1b[1Cfor\x1b[1Call")
    result = parser.screen(screen(rows("pro_dialog")))
    again = parser.screen(screen(rows("pro_dialog")))

    assert asked.want_screen
    assert [event.kind for event in result.events] == ["limit_reached"]
    assert again.events == []
    # Once it is told, the prompt coming back asks for a look too: the next limit is told again.
    assert parser.feed(b"\x1b[5;3HType your message or @path/to/file").want_screen


def hook_log(ctx, *records: dict) -> None:
    log = home.hooks_file(ctx)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(json.dumps(record) + "\n" for record in records))


START = {"hook_event_name": "SessionStart", "session_id": "s-1", "source": "startup"}
CUT = {"hook_event_name": "BeforeAgent", "session_id": "s-1", "prompt": "go MOCK_LIMIT:QUOTA_EXHAUSTED:1796183469"}


def test_the_resume_picks_stop_by_its_number_then_sends_the_cut_prompt_again(make_ctx) -> None:
    """Gemini rolls a prompt whose request failed out of the conversation: `continue` alone would
    reach a model that never saw it (recorded: the continued request held no cut prompt)."""
    [reached] = look("pro_dialog", limits.LimitDialog())
    assert reached.limit is not None
    ctx = make_ctx()
    hook_log(ctx, START, {**CUT, "prompt": "an earlier prompt"}, {"hook_event_name": "AfterAgent"}, CUT)

    # "2" takes "2. Stop" at once (Enter would take "1. Keep trying", or "Switch to <model>");
    # Backspace removes the 2 from the prompt had the dialog been closed before.
    assert plugin.limit_resume(ctx=ctx, limit=reached.limit) == LimitResume(
        how="text", keys=["2", "backspace"], text=CUT["prompt"]
    )


def test_a_turn_cut_after_a_tool_ran_is_continued(make_ctx) -> None:
    """The failed request carried the tool's result: Gemini keeps it, and the prompt before it."""
    ctx = make_ctx()
    hook_log(ctx, START, CUT, {"hook_event_name": "BeforeTool"}, {"hook_event_name": "AfterTool"})
    limit = LimitReport(kind="usage", message="Usage limit reached for all Pro models. 1. Keep trying 2. Stop")

    assert limits.limit_resume(ctx, limit).text == "continue"
    hook_log(ctx, START)  # no prompt known (a user's hooks off leave no log at all)
    assert limits.limit_resume(ctx, limit).text == "continue"


@pytest.mark.parametrize(
    ("answers", "key"),
    [
        ("1. Switch to gemini-2.5-flash 2. Stop", "2"),
        ("1. Switch to gemini-2.5-flash 2. Upgrade for higher limits 3. Stop", "3"),
        ("", "2"),
    ],
)
def test_stop_is_the_number_the_dialog_gave_it(make_ctx, answers: str, key: str) -> None:
    limit = LimitReport(kind="usage", message=f"Usage limit reached for all Pro models. {answers}".strip())

    assert limits.limit_resume(make_ctx(), limit).keys == [key, "backspace"]


def test_a_dialog_without_a_reset_has_none_and_a_quoted_line_is_no_dialog() -> None:
    daily = [
        "Usage limit reached for gemini-2.5-pro.",
        "/stats model for usage details",
        "",
        "● 1. Keep trying",
        "2. Stop",
    ]
    quoted = ["✦ The CLI said:", "Usage limit reached for gemini-2.5-pro.", "", "> next prompt"]

    [reached] = limits.LimitDialog().look(PTY, daily, NOW)

    assert reached.limit is not None and reached.limit.resets_at is None
    assert limits.LimitDialog().look(PTY, quoted, NOW) == []


NOW = datetime(2026, 12, 2, 3, 48, 52, tzinfo=UTC)


@pytest.mark.parametrize(
    ("said", "resets_at"),
    [
        ("Access resets at 3:55 AM UTC.", "2026-12-02T03:56:00Z"),
        # The minute it was said in: a reset seconds ahead, not tomorrow's.
        ("Access resets at 3:48 AM UTC.", "2026-12-02T03:49:00Z"),
        ("Access resets at 3:47 AM UTC.", "2026-12-03T03:48:00Z"),
        ("Access resets at 9:46 PM UTC.", "2026-12-02T21:47:00Z"),
        ("Access resets at 12:05 AM UTC.", "2026-12-03T00:06:00Z"),
        # ICU 72 and later put a narrow no-break space before the AM/PM.
        ("Access resets at 4:10\u202fAM UTC.", "2026-12-02T04:11:00Z"),
        ("Access resets at 7:30 AM GMT+2.", "2026-12-02T05:31:00Z"),
        ("Access resets at 12:30 AM GMT-3:30.", "2026-12-02T04:01:00Z"),
        ("Usage limit reached for all Pro models.", None),
    ],
)
def test_a_reset_on_screen_is_the_end_of_the_next_such_minute(said: str, resets_at: str | None) -> None:
    assert limits.reset_on_screen(said, NOW) == resets_at


@pytest.fixture
def pacific() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "America/Los_Angeles")
        time.tzset()
        yield
    time.tzset()


def test_a_zone_by_name_is_this_machines_where_gemini_formatted_it(pacific: None) -> None:
    # 03:48:52 UTC is 7:48 PM the day before in Los Angeles (PST, UTC-8).
    assert limits.reset_on_screen("Access resets at 8:15 PM PST.", NOW) == "2026-12-02T04:16:00Z"
