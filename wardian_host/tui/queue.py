"""The person's queue at the top of the dashboard: `wardian inbox`'s entries, most urgent first,
with the keys that answer each (approve or reject a dialog or a workflow's approval, reply to an
ask, look at an agent in error).

This machine's entries are asked for on each status change; the remotes' (over ssh) with their
rosters, every few seconds.
"""

from dataclasses import dataclass, field
from typing import Any

from wardian_host.tui.roster import RosterRow

DIALOG, APPROVAL, ASK, ERROR = "dialog", "approval", "ask", "error"
# wardian_core.inbox.URGENCY, for entries merged from several machines (a test keeps them equal):
# not imported, as its pydantic models would weigh on the dashboard's start.
URGENCY = {DIALOG: 0, APPROVAL: 1, ASK: 2, "budget": 3, "limit": 3, ERROR: 4, "unseen_turn": 5}
# The choice `a` takes on an entry that is not a dialog: accept an approval, raise a budget that
# holds an agent, resume an agent a usage limit cut. `x` rejects an approval.
ACCEPTING = ("accept", "approve", "raise", "resume")


# A dataclass for the reason RosterRow is one: pydantic's import stays off the start.
@dataclass(frozen=True)
class QueueEntry:
    kind: str  # dialog, approval (a workflow's), ask, budget, limit, error, unseen_turn
    agent: str  # NAME, or NAME@MACHINE; empty for a workflow's approval
    summary: str
    command: str = ""  # the exact command that answers it
    request_id: str | None = None  # an ask's, for a reply
    choices: list[tuple[str, str]] = field(default_factory=list)  # each way to answer it: its label, its command


def local_entries() -> list[QueueEntry]:
    """`wardian inbox --local`: this machine's entries."""
    from wardian_host.answers.inbox import inbox_answer

    return [from_inbox(entry.model_dump()) for entry in inbox_answer().entries]


def remote_entries() -> list[QueueEntry]:
    """The configured remotes' entries, as `wardian inbox` reads them (none configured: none)."""
    from wardian_host.remote.inboxes import remote_inboxes

    return [from_inbox(entry.model_dump()) for inbox in remote_inboxes(False) for entry in inbox.entries]


def merged(*parts: list[QueueEntry]) -> list[QueueEntry]:
    entries = [entry for part in parts for entry in part]
    return sorted(entries, key=lambda entry: URGENCY.get(entry.kind, len(URGENCY)))


def from_inbox(entry: dict[str, Any]) -> QueueEntry:
    name = str(entry.get("agent") or "")
    machine = entry.get("machine")
    if name and machine and machine != "local":
        name = f"{name}@{machine}"
    choices = [(str(choice["label"]), str(choice["command"])) for choice in entry.get("choices") or []]
    return QueueEntry(
        kind=str(entry["kind"]),
        agent=name,
        summary=str(entry.get("summary") or ""),
        command=str(entry.get("command") or ""),
        request_id=entry.get("request_id"),
        choices=choices,
    )


def choice_command(entry: QueueEntry, answer: str) -> str | None:
    """The command of the entry's choice that accepts (`accept`) or rejects (`reject`), if any."""
    words = ACCEPTING if answer == "accept" else ("reject",)
    return next((command for label, command in entry.choices if label in words), None)


def from_roster(rows: list[RosterRow]) -> list[QueueEntry]:
    """What the roster alone tells (fixed screens, with no host to ask): dialogs, then errors."""
    found: list[QueueEntry] = []
    for kind, status in ((DIALOG, "action_required"), (ERROR, "error")):
        for row in rows:
            if row.status == status:
                evidence = row.status_evidence or {}
                said = evidence.get("message") or evidence.get("reason") or status
                summary = f"{row.key} is waiting at a dialog: {said}" if kind == DIALOG else f"{row.key}: {said}"
                found.append(QueueEntry(kind=kind, agent=row.key, summary=str(summary)))
    return found
