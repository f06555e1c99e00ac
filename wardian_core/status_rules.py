"""How provider events become statuses: docs/architecture.md's "Events and statuses" table,
in one function the host, `providers replay` and tests share."""

from dataclasses import dataclass

from wardian_core.provider_models import EventKind
from wardian_core.statuses import STATUSES, Status

# Where an agent may have been when a dialog opened, and so return to when it closes.
DIALOG_RETURNS: tuple[Status, ...] = ("starting", "idle", "processing")

# The status each event leads to, before the conditions in `next_status`.
_EVENT_STATUS: dict[EventKind, Status | None] = {
    "session_started": None,
    "ready": "idle",
    "turn_started": "processing",
    "generating": "processing",
    "approval_requested": "action_required",
    "approval_resolved": None,  # back to the status before the dialog: see `next_status`
    "turn_completed": "idle",
    "error": "error",
    "session_ended": "off",
    "usage_reported": None,  # figures, no change of state
}


def next_status(current: Status, event_kind: EventKind, before_dialog: Status | None = None) -> Status | None:
    """The status `event_kind` moves an agent in `current` to, or None for no change.

    `before_dialog` is the status the agent had when its current dialog opened
    (`status_before_dialog` keeps it); `approval_resolved` returns there, and to
    `processing` when it is unknown: a dialog mostly interrupts a turn. The types say the
    same as the checks, which stay for callers that read their values from outside.
    """
    if current not in STATUSES:
        raise ValueError(f"unknown status {current!r}")
    if event_kind not in _EVENT_STATUS:
        raise ValueError(f"unknown provider event {event_kind!r}")
    if event_kind == "approval_resolved":
        if current != "action_required":
            return None
        return before_dialog if before_dialog in DIALOG_RETURNS else "processing"
    target = _EVENT_STATUS[event_kind]
    if event_kind == "ready" and current != "starting":
        # A ready prompt also shows between turns; only turn_completed ends a turn.
        return None
    if event_kind == "generating" and current == "action_required":
        # Spinners keep drawing under an approval dialog: only the answer clears it.
        return None
    return None if target == current else target


def status_before_dialog(remembered: Status | None, previous: Status, current: Status) -> Status | None:
    """What `approval_resolved` will return to, after a change from `previous` to `current`."""
    if current != "action_required":
        return None
    return remembered if previous == "action_required" else previous


@dataclass
class StatusCourse:
    """A status followed event by event outside the host's tracker (headless runs, replay)."""

    status: Status = "starting"
    before_dialog: Status | None = None

    def apply(self, event_kind: EventKind) -> Status | None:
        """Move on by one event; the new status, or None when it does not change."""
        target = next_status(self.status, event_kind, self.before_dialog)
        if target is not None:
            self.before_dialog = status_before_dialog(self.before_dialog, self.status, target)
            self.status = target
        return target
