"""What `wardian inbox` answers (and `wardian tui`'s queue): what needs a person, most urgent
first, on this machine and, when the caller hands a reader of them, on the configured remotes.

This machine's entries come from its host (`inbox.list`); with no host running, from state.db
(the statuses the last host stored, the pending asks and approvals), with a notice saying so.
"""

from collections.abc import Callable, Iterator
from typing import Any

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.inbox import Inbox, InboxEntry, MachineInbox, machine_entries, ordered, stored_parts
from wardian_host.answers.connection import request

# Each remote's own answer, as this machine shows it (`wardian_host.remote.inboxes.remote_inboxes`):
# handed in, since answers never import the remote part themselves.
RemoteInboxes = Callable[[bool], list[Inbox]]


def inbox_answer(unseen: bool = False, remotes: RemoteInboxes | None = None) -> Inbox:
    """Every entry, most urgent first: this machine's, then with `remotes` each remote's merged in.
    `unseen`: also the finished turns nobody has looked at yet."""
    local = local_inbox(unseen)
    if remotes is None:
        return local
    others = remotes(unseen)
    entries = ordered([entry for inbox in (local, *others) for entry in inbox.entries])
    machines = [machine for inbox in (local, *others) for machine in inbox.machines]
    return Inbox(entries=entries, machines=machines, notice=local.notice)


def local_inbox(unseen: bool = False) -> Inbox:
    try:
        answer = request("inbox.list", {"unseen": unseen})
    except WardianError as error:
        if error.code != "app_not_running":
            raise
        return _stored_inbox()
    return Inbox.model_validate(answer)


def _stored_inbox() -> Inbox:
    """No host runs: what state.db says. No finished turn is unseen without a host to have seen it end."""
    from wardian_core.db.budgets import held_agents
    from wardian_core.db.connection import reading
    from wardian_core.roster import load_records

    home = paths.wardian_home()
    try:
        agents = load_records(home)
        with reading(home) as conn:
            requests, runs = stored_parts(conn)
            held = held_agents(conn)
    except WardianError as error:
        if error.code != "db_unavailable":
            raise
        agents, requests, runs, held = [], [], [], []  # a home nothing ran in yet: nothing needs anyone
    entries = machine_entries(agents, requests, runs, held=held)
    notice = {
        "reason": "no_host",
        "message": "no host runs: this answer is read from state.db, and lists no finished turns",
        "hint": "`wardian host start` adopts every agent still running; `wardian inbox` then asks it.",
    }
    return Inbox(entries=entries, machines=[MachineInbox(machine="local", entries=len(entries))], notice=notice)


def inbox_envelope(inbox: Inbox) -> dict[str, Any]:
    """The JSON `wardian inbox` prints: `entries` and `machines` (and `notice` when there is one)."""
    shown = inbox.model_dump(exclude_none=False)
    if shown.get("notice") is None:
        shown.pop("notice", None)
    return {"schema": SCHEMA_VERSION} | shown


def changes(before: Inbox | None, after: Inbox) -> Iterator[dict[str, Any]]:
    """What `--follow` prints between two answers, one item per change: an entry added, changed or
    removed, and a machine whose reachability or error changed."""
    old = {entry.id: entry for entry in (before.entries if before else [])}
    new = {entry.id: entry for entry in after.entries}
    for entry_id, entry in old.items():
        if entry_id not in new:
            yield {"change": "removed", "id": entry_id, "entry": _shown(entry)}
    for entry_id, entry in new.items():
        if entry_id not in old:
            yield {"change": "added", "id": entry_id, "entry": _shown(entry)}
        elif old[entry_id] != entry:
            yield {"change": "changed", "id": entry_id, "entry": _shown(entry)}
    was = {machine.machine: machine for machine in (before.machines if before else [])}
    for machine in after.machines:
        previous = was.get(machine.machine)
        # At first only a machine that failed is news; later, any that came, went or changed.
        first_news = previous is None and (before is not None or not machine.reachable or machine.error is not None)
        if first_news or (previous is not None and _moved(previous, machine)):
            yield {"change": "machine", "machine": machine.model_dump()}


def _moved(previous: MachineInbox, current: MachineInbox) -> bool:
    return (previous.reachable, previous.error) != (current.reachable, current.error)


def _shown(entry: InboxEntry) -> dict[str, Any]:
    return entry.model_dump()
