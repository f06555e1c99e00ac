"""How provider events become statuses: docs/architecture.md's "Events and statuses" table,
in one function the host, `providers replay` and tests share."""

from dataclasses import dataclass, field
from typing import Any

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
    # A limit cut the turn: the CLI waits, as at rest; the agent record carries the limit.
    "limit_reached": "idle",
    # The CLI waits out the limit by itself, still in its turn.
    "limit_retrying": None,
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
class TurnEnd:
    """The last turn the provider said ended, by the id it names its turns with (`ProviderEvent.turn`).

    A CLI that tells a turn in two sources (Codex's hooks and its rollout) has each read in its
    own time: once one source ended a turn, the other's news of it (a tool's output read late,
    the same end again) is late and changes no status, or the turn would end twice, and a late
    end would end the next turn."""

    turn: str | None = None

    @classmethod
    def from_evidence(cls, evidence: dict[str, Any] | None) -> "TurnEnd":
        """The turn whose end the stored evidence records, for a host that takes an agent on."""
        evidence = evidence or {}
        turn = evidence.get("turn") if evidence.get("event") == "turn_completed" else None
        return cls(turn if isinstance(turn, str) else None)

    def late(self, event_kind: EventKind, turn: str | None) -> bool:
        """Whether an event of `turn` comes after that turn ended; a turn's first end is remembered."""
        if turn is None:
            return False
        if turn == self.turn:
            return True
        if event_kind == "turn_completed":
            self.turn = turn
        return False


@dataclass
class StatusCourse:
    """A status followed event by event outside the host's tracker (headless runs, replay)."""

    status: Status = "starting"
    before_dialog: Status | None = None
    ended: TurnEnd = field(default_factory=TurnEnd)

    def apply(self, event_kind: EventKind, turn: str | None = None) -> Status | None:
        """Move on by one event (of `turn`, when the provider names it); the new status, or None
        when it does not change."""
        if self.ended.late(event_kind, turn):
            return None
        target = next_status(self.status, event_kind, self.before_dialog)
        if target is not None:
            self.before_dialog = status_before_dialog(self.before_dialog, self.status, target)
            self.status = target
        return target
