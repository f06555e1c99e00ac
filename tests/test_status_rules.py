"""docs/architecture.md's "Events and statuses" table, cell by cell."""

import re
from pathlib import Path
from typing import cast

import pytest

from wardian_core.provider_models import EVENT_KINDS, EventKind
from wardian_core.status_rules import StatusCourse, TurnEnd, next_status, status_before_dialog
from wardian_core.statuses import STATUSES, Status

LIVE: tuple[Status, ...] = ("starting", "idle", "processing", "action_required", "error")


@pytest.mark.parametrize("current", STATUSES)
def test_session_started_never_changes_status(current: Status) -> None:
    assert next_status(current, "session_started") is None


def test_ready_makes_a_starting_agent_idle() -> None:
    assert next_status("starting", "ready") == "idle"


@pytest.mark.parametrize("current", ["idle", "processing", "action_required", "error"])
def test_ready_changes_nothing_once_started(current: Status) -> None:
    assert next_status(current, "ready") is None


@pytest.mark.parametrize("current", ["starting", "idle", "action_required", "error"])
def test_turn_started_means_processing(current: Status) -> None:
    assert next_status(current, "turn_started") == "processing"


@pytest.mark.parametrize("current", ["starting", "idle", "error"])
def test_generating_means_processing(current: Status) -> None:
    assert next_status(current, "generating") == "processing"


def test_generating_never_clears_action_required() -> None:
    assert next_status("action_required", "generating") is None


@pytest.mark.parametrize("current", ["starting", "idle", "processing", "error"])
def test_approval_requested_means_action_required(current: Status) -> None:
    assert next_status(current, "approval_requested") == "action_required"


@pytest.mark.parametrize("current", ["starting", "processing", "action_required", "error"])
def test_turn_completed_means_idle(current: Status) -> None:
    assert next_status(current, "turn_completed") == "idle"


@pytest.mark.parametrize("current", LIVE)
def test_error_and_session_ended(current: Status) -> None:
    assert next_status(current, "error") == (None if current == "error" else "error")
    assert next_status(current, "session_ended") == "off"


@pytest.mark.parametrize("current", STATUSES)
def test_usage_reported_never_changes_status(current: Status) -> None:
    assert next_status(current, "usage_reported") is None


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_an_event_leading_to_the_current_status_is_no_change(kind: EventKind) -> None:
    for current in STATUSES:
        assert next_status(current, kind) != current


def test_unknown_event_or_status_is_a_bug_not_a_silent_no_op() -> None:
    with pytest.raises(ValueError, match="unknown provider event"):
        next_status("idle", cast(EventKind, "thinking"))  # a kind no parser may send
    with pytest.raises(ValueError, match="unknown status"):
        next_status(cast(Status, "busy"), "ready")  # a status no code names


def test_approval_resolved_returns_a_turn_to_processing() -> None:
    course = StatusCourse("idle")
    assert [course.apply(kind) for kind in ("turn_started", "approval_requested", "approval_resolved")] == [
        "processing",
        "action_required",
        "processing",
    ]
    assert course.apply("turn_completed") == "idle"


def test_approval_resolved_returns_a_start_up_dialog_to_starting_and_ready_then_idles() -> None:
    course = StatusCourse("starting")
    assert course.apply("approval_requested") == "action_required"
    assert course.apply("approval_resolved") == "starting"
    assert course.apply("ready") == "idle"


def test_a_second_dialog_in_a_row_returns_to_the_status_before_the_first() -> None:
    course = StatusCourse("idle")
    assert course.apply("approval_requested") == "action_required"
    assert course.apply("approval_requested") is None  # still the same wait for a person
    assert course.apply("approval_resolved") == "idle"


@pytest.mark.parametrize("current", ["starting", "idle", "processing", "error", "off", "headless"])
def test_approval_resolved_without_a_dialog_changes_nothing(current: Status) -> None:
    assert next_status(current, "approval_resolved", "idle") is None


def test_approval_resolved_with_no_status_remembered_means_the_turn_goes_on() -> None:
    assert next_status("action_required", "approval_resolved") == "processing"
    assert next_status("action_required", "approval_resolved", "error") == "processing"


def test_status_before_dialog_is_kept_only_while_the_dialog_is_open() -> None:
    assert status_before_dialog(None, "processing", "action_required") == "processing"
    assert status_before_dialog("processing", "action_required", "action_required") == "processing"
    assert status_before_dialog("processing", "action_required", "off") is None


def test_the_documented_table_names_every_event_and_status_once() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Events and statuses", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    assert documented == list(EVENT_KINDS)
    statuses = re.search(r"The statuses are\s+`wardian_core.statuses`: (.*?)\.\n", section, re.DOTALL)
    assert statuses is not None
    assert re.findall(r"`(\w+)`", statuses.group(1)) == list(STATUSES)


def test_a_turns_news_after_its_end_changes_nothing_and_a_late_end_spares_the_next_turn() -> None:
    course = StatusCourse("idle")
    # One turn told by two sources: the second's start, work and end of it come after its end.
    told: list[tuple[EventKind, str]] = [("turn_started", "t1"), ("turn_completed", "t1"), ("turn_started", "t1")]
    told += [("generating", "t1")]
    told += [("turn_completed", "t1"), ("turn_started", "t2"), ("turn_completed", "t1")]
    expected = ["processing", "idle", None, None, None, "processing", None]
    assert [course.apply(kind, turn) for kind, turn in told] == expected
    assert course.apply("turn_completed", "t2") == "idle"
    assert course.apply("generating") == "processing"  # an event of no named turn is as it was


def test_the_ended_turn_is_read_from_stored_evidence_only_when_it_records_a_turns_end() -> None:
    assert TurnEnd.from_evidence({"event": "turn_completed", "turn": "t1"}).turn == "t1"
    assert TurnEnd.from_evidence({"event": "turn_started", "turn": "t1"}).turn is None
    assert TurnEnd.from_evidence({"event": "turn_completed"}).turn is None
    assert TurnEnd.from_evidence(None).turn is None
