"""DESIGN's "Provider events and statuses" table, cell by cell."""

import pytest

from wardian_core.provider_models import EVENT_KINDS
from wardian_core.status_rules import next_status
from wardian_core.statuses import STATUSES

LIVE = ("starting", "idle", "processing", "action_required", "error")


@pytest.mark.parametrize("current", STATUSES)
def test_session_started_never_changes_status(current: str) -> None:
    assert next_status(current, "session_started") is None


def test_ready_makes_a_starting_agent_idle() -> None:
    assert next_status("starting", "ready") == "idle"


@pytest.mark.parametrize("current", ["idle", "processing", "action_required", "error"])
def test_ready_changes_nothing_once_started(current: str) -> None:
    assert next_status(current, "ready") is None


@pytest.mark.parametrize("current", ["starting", "idle", "action_required", "error"])
def test_turn_started_means_processing(current: str) -> None:
    assert next_status(current, "turn_started") == "processing"


@pytest.mark.parametrize("current", ["starting", "idle", "error"])
def test_generating_means_processing(current: str) -> None:
    assert next_status(current, "generating") == "processing"


def test_generating_never_clears_action_required() -> None:
    assert next_status("action_required", "generating") is None


@pytest.mark.parametrize("current", ["starting", "idle", "processing", "error"])
def test_approval_requested_means_action_required(current: str) -> None:
    assert next_status(current, "approval_requested") == "action_required"


@pytest.mark.parametrize("current", ["starting", "processing", "action_required", "error"])
def test_turn_completed_means_idle(current: str) -> None:
    assert next_status(current, "turn_completed") == "idle"


@pytest.mark.parametrize("current", LIVE)
def test_error_and_session_ended(current: str) -> None:
    assert next_status(current, "error") == (None if current == "error" else "error")
    assert next_status(current, "session_ended") == "off"


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_an_event_leading_to_the_current_status_is_no_change(kind: str) -> None:
    for current in STATUSES:
        assert next_status(current, kind) != current


def test_unknown_event_or_status_is_a_bug_not_a_silent_no_op() -> None:
    with pytest.raises(ValueError, match="unknown provider event"):
        next_status("idle", "thinking")
    with pytest.raises(ValueError, match="unknown status"):
        next_status("busy", "ready")
