"""How provider events become statuses: DESIGN's "Provider events and statuses" table,
in one function the host, `providers replay` and tests share."""

from wardian_core.statuses import STATUSES

# The status each event leads to, before the conditions in `next_status`.
_EVENT_STATUS: dict[str, str | None] = {
    "session_started": None,
    "ready": "idle",
    "turn_started": "processing",
    "generating": "processing",
    "approval_requested": "action_required",
    "turn_completed": "idle",
    "error": "error",
    "session_ended": "off",
}


def next_status(current: str, event_kind: str) -> str | None:
    """The status `event_kind` moves an agent in `current` to, or None for no change."""
    if current not in STATUSES:
        raise ValueError(f"unknown status {current!r}")
    if event_kind not in _EVENT_STATUS:
        raise ValueError(f"unknown provider event {event_kind!r}")
    target = _EVENT_STATUS[event_kind]
    if event_kind == "ready" and current != "starting":
        # A ready prompt also shows between turns; only turn_completed ends a turn.
        return None
    if event_kind == "generating" and current == "action_required":
        # Spinners keep drawing under an approval dialog: only the answer clears it.
        return None
    return None if target == current else target
