"""The person's queue at the top of the dashboard: what needs a person, most urgent first,
with the keys that answer each entry.

`wardian inbox` (wardian_host.answers.inbox) gives the queue, each entry with the exact command
that answers it. Where that answer is not in this install, the queue is what the roster alone
tells: agents waiting at a dialog, and agents in error.
"""

from typing import Any

from pydantic import BaseModel

from wardian_host.tui.roster import RosterRow

# What a key can do to an entry of each kind.
DIALOG, APPROVAL, ASK, ERROR = "dialog", "approval", "ask", "error"


class QueueEntry(BaseModel):
    kind: str  # dialog, approval (a workflow's), ask, error, unseen_turn
    agent: str  # NAME, or NAME@MACHINE
    summary: str
    command: str = ""  # the exact command that answers it
    request_id: str | None = None  # an ask's, for a reply
    choices: list[tuple[str, str]] = []  # each way to answer it: its label, its command


def entries(rows: list[RosterRow]) -> list[QueueEntry]:
    """The inbox's entries when this install has `wardian inbox`, else the roster's."""
    try:
        from wardian_host.answers import inbox
    except ImportError:
        return from_roster(rows)
    return [from_inbox(entry) for entry in _inbox_entries(inbox)]


def _inbox_entries(inbox: Any) -> list[dict[str, Any]]:
    """`wardian inbox`'s entries as plain data: this machine's, and the remotes' when configured."""
    answer = inbox.inbox_answer(remotes=_remote_inboxes())
    return [entry.model_dump() for entry in answer.entries]


def _remote_inboxes() -> Any:
    """The reader of the remotes' inboxes `wardian inbox` uses, when remotes are configured."""
    from wardian_host.tui.roster import has_remotes

    if not has_remotes():
        return None
    try:
        from wardian_host.remote.inboxes import remote_inboxes
    except ImportError:
        return None
    return remote_inboxes


def from_inbox(entry: dict[str, Any]) -> QueueEntry:
    kind = str(entry.get("kind", ""))
    agent = entry.get("agent")
    name = agent.get("name", "") if isinstance(agent, dict) else str(agent or "")
    machine = entry.get("machine")
    if machine and machine != "local" and "@" not in name:
        name = f"{name}@{machine}"
    summary = entry.get("summary") or entry.get("question") or entry.get("message") or entry.get("title") or ""
    choices = [(str(choice.get("label", "")), str(choice.get("command", ""))) for choice in entry.get("choices") or []]
    return QueueEntry(
        kind=kind,
        agent=name,
        summary=str(summary),
        command=str(entry.get("command") or ""),
        request_id=entry.get("request_id"),
        choices=choices,
    )


def choice_command(entry: QueueEntry, answer: str) -> str | None:
    """The command of the entry's choice that accepts (`accept`) or rejects (`reject`), if any."""
    words = ("accept", "approve", "allow", "yes") if answer == "accept" else ("reject", "deny", "no")
    for label, command in entry.choices:
        if any(label.lower().startswith(word) for word in words):
            return command
    return None


def from_roster(rows: list[RosterRow]) -> list[QueueEntry]:
    """Dialogs first, then errors: each with the command that answers it."""
    found: list[QueueEntry] = []
    for row in rows:
        if row.status == "action_required":
            evidence = row.status_evidence or {}
            question = evidence.get("message") or evidence.get("dialog") or "waits at a dialog"
            command = f"wardian send --approval accept --to {row.key}"
            found.append(QueueEntry(kind=DIALOG, agent=row.key, summary=str(question), command=command))
    for row in rows:
        if row.status == "error":
            evidence = row.status_evidence or {}
            why = evidence.get("message") or evidence.get("reason") or "ended in error"
            command = f"wardian agent screen {row.key}"
            found.append(QueueEntry(kind=ERROR, agent=row.key, summary=str(why), command=command))
    return found
