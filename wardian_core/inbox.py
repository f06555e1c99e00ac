"""What needs a person (`wardian inbox`, the web view's queue, `wardian tui`): each entry with
the exact command that answers it, most urgent first.

Built from what the host (or state.db) already knows: the agents' statuses and evidence, the
requests of `wardian ask`, the workflow runs and the finished turns nobody has looked at (the
notice rules' `unseen_turn`). One machine's entries are built here; `Inbox` gathers machines.
"""

import json
import shlex
import sqlite3
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wardian_core.budget_steps import raise_step
from wardian_core.parsing.escapes import strip_escapes

EntryKind = Literal["dialog", "approval", "ask", "budget", "error", "unseen_turn", "limit"]
# Most urgent first: a dialog holds an agent mid-turn, an approval a whole run, an ask its asker,
# a budget an agent between turns; an error is over already, and a finished turn waits on nobody.
URGENCY: dict[str, int] = {"dialog": 0, "approval": 1, "ask": 2, "budget": 3, "error": 4, "unseen_turn": 5}
# A usage limit waiting for a person's resume holds an agent between turns, as a budget does.
URGENCY["limit"] = URGENCY["budget"]
LAST_LINES = 5
LOCAL_MACHINE = "local"
# The statuses in which an asked agent still answers its own request.
ANSWERING_STATUSES = ("starting", "idle", "processing", "action_required")


class InboxAction(BaseModel):
    """An answer as a request to the host (what the web view posts to `/api/action`)."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    params: dict[str, Any] = Field(default_factory=dict)


class InboxChoice(BaseModel):
    """One way to answer an entry: its label, the command a person types, the request it makes."""

    model_config = ConfigDict(extra="forbid")

    label: str
    command: str
    action: InboxAction | None = None
    # The action takes the person's text (a reply's body) as `params[text_param]`.
    text_param: str | None = None


class InboxEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable while the entry stands: machine, kind and what it is about.")
    kind: EntryKind
    machine: str = LOCAL_MACHINE
    agent: str | None = None
    uuid: str | None = None
    since: str | None = Field(None, description="When it began to wait (ISO 8601).")
    summary: str = Field(description="One line for people.")
    question: str | None = None
    choices: list[InboxChoice] = Field(default_factory=list)
    command: str = Field(description="The command that answers it (the first choice's).")
    request_id: str | None = None
    run_id: str | None = None
    node: str | None = None
    exit_code: int | None = None
    last_lines: list[str] = Field(default_factory=list)


class MachineInbox(BaseModel):
    """One machine's part of the answer: reachable or not, how many entries, its error."""

    model_config = ConfigDict(extra="forbid")

    machine: str
    reachable: bool = True
    entries: int = 0
    error: dict[str, Any] | None = None


class Inbox(BaseModel):
    """`wardian inbox`'s answer (without its envelope's `schema`)."""

    model_config = ConfigDict(extra="forbid")

    entries: list[InboxEntry] = Field(default_factory=list)
    machines: list[MachineInbox] = Field(default_factory=list)
    notice: dict[str, Any] | None = None


def ordered(entries: list[InboxEntry]) -> list[InboxEntry]:
    """Most urgent kind first; within a kind, the one waiting longest first."""
    return sorted(entries, key=lambda entry: (URGENCY[entry.kind], entry.since or "", entry.machine, entry.id))


def machine_entries(
    agents: list[dict[str, Any]],
    requests: list[dict[str, Any]],
    runs: list[dict[str, Any]],
    unseen: dict[str, str] | None = None,
    held: list[dict[str, Any]] | None = None,
) -> list[InboxEntry]:
    """One machine's entries, ordered. `agents`: records with status, status_evidence and
    last_status_at; `requests`: pending asks; `runs`: runs with their nodes; `unseen`: uuid → when
    its finished turn went unseen (None: not asked for); `held`: agents their budget holds
    (`wardian_core.db.budgets.held_agents`)."""
    by_uuid = {agent["uuid"]: agent for agent in agents}
    entries = [entry for agent in agents if (entry := _agent_entry(agent)) is not None]
    entries += [_ask_entry(request) for request in requests if _needs_a_person(request, by_uuid)]
    entries += [_approval_entry(run, node_id, node) for run in runs for node_id, node in _awaiting(run)]
    entries += [_unseen_entry(by_uuid[uuid], at) for uuid, at in (unseen or {}).items() if uuid in by_uuid]
    entries += [_budget_entry(agent) for agent in held or []]
    return ordered(entries)


def _agent_entry(agent: dict[str, Any]) -> InboxEntry | None:
    if agent["status"] == "action_required":
        return _dialog_entry(agent)
    if agent["status"] == "error":
        return _error_entry(agent)
    limit = _limit(agent)
    if limit is not None and limit.get("resume") in ("ask", "failed"):
        return _limit_entry(agent, limit)
    return None


def _limit(agent: dict[str, Any]) -> dict[str, Any] | None:
    """The agent's usage limit: JSON text in a host's snapshot, a dict in a record."""
    limit = agent.get("limit")
    if isinstance(limit, str):
        parsed: dict[str, Any] | None = json.loads(limit) if limit else None
        return parsed
    return limit if isinstance(limit, dict) else None


def _limit_entry(agent: dict[str, Any], limit: dict[str, Any]) -> InboxEntry:
    """An agent a usage limit cut, to resume by hand (`limits.resume = "ask"`, or a resume that failed)."""
    name = agent["name"]
    resume = InboxChoice(
        label="resume",
        command=_command("agent", "resume-limit", name),
        action=InboxAction(kind="agent.resume_limit", params={"target": agent["uuid"]}),
    )
    look = InboxChoice(label="look", command=_command("agent", "screen", name))
    resets = limit.get("resets_at") or "at a time its CLI did not say"
    why = f"its resume failed: {limit.get('failure')}" if limit.get("resume") == "failed" else f"resets {resets}"
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:limit:{agent['uuid']}",
        kind="limit",
        agent=name,
        uuid=agent["uuid"],
        since=limit.get("reached_at"),
        summary=f"{name} hit its {limit.get('kind', 'usage')} limit ({why}); resume it when you choose",
        choices=[resume, look],
        command=resume.command,
    )


def _command(*words: str) -> str:
    return shlex.join(["wardian", *words])


def _dialog_entry(agent: dict[str, Any]) -> InboxEntry:
    evidence = agent.get("status_evidence") or {}
    name = agent["name"]
    question = evidence.get("message") or ": ".join(
        str(part) for part in (evidence.get("dialog"), evidence.get("line") or evidence.get("reason")) if part
    )
    choices = [
        InboxChoice(
            label=answer,
            command=_command("send", "--approval", answer, "--to", name),
            action=InboxAction(kind="send", params={"to": agent["uuid"], "approval": answer}),
        )
        for answer in ("accept", "reject")
    ]
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:dialog:{agent['uuid']}",
        kind="dialog",
        agent=name,
        uuid=agent["uuid"],
        since=agent.get("last_status_at"),
        summary=f"{name} is waiting at a dialog: {question or 'waiting for you'}",
        question=question or None,
        choices=choices,
        command=choices[0].command,
    )


def _error_entry(agent: dict[str, Any]) -> InboxEntry:
    evidence = agent.get("status_evidence") or {}
    name = agent["name"]
    exit_code = evidence.get("exit_code")
    lines = last_lines(str(evidence.get("output_tail") or evidence.get("line") or ""))
    why = f"exit {exit_code}" if exit_code is not None else str(evidence.get("reason") or evidence.get("rule") or "")
    choices = [
        InboxChoice(
            label="restart",
            command=_command("agent", "restart", name),
            action=InboxAction(kind="agent.restart", params={"target": agent["uuid"]}),
        ),
        InboxChoice(label="look", command=_command("agent", "show", name, "--fields", "status,status_evidence")),
    ]
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:error:{agent['uuid']}",
        kind="error",
        agent=name,
        uuid=agent["uuid"],
        since=agent.get("last_status_at"),
        summary=f"{name} ended in error" + (f" ({why})" if why else "") + (f": {lines[-1]}" if lines else ""),
        choices=choices,
        command=choices[0].command,
        exit_code=exit_code if isinstance(exit_code, int) else None,
        last_lines=lines,
    )


def last_lines(text: str, count: int = LAST_LINES) -> list[str]:
    """The last `count` non-blank lines of terminal output, escapes stripped."""
    plain = strip_escapes(text).replace("\r\n", "\n").replace("\r", "\n")
    return [line.rstrip() for line in plain.split("\n") if line.strip()][-count:]


def _needs_a_person(request: dict[str, Any], agents: dict[str, dict[str, Any]]) -> bool:
    """A pending ask whose asked agent no longer runs: only a person's reply can end it."""
    if request.get("status") != "pending":
        return False
    asked = agents.get(request.get("agent_uuid") or "")
    return asked is None or asked["status"] not in ANSWERING_STATUSES


def _ask_entry(request: dict[str, Any]) -> InboxEntry:
    request_id = request["request_id"]
    asked = request.get("agent")
    choices = [
        InboxChoice(
            label=status,
            command=_command("reply", request_id, "--status", status, "--stdin"),
            action=InboxAction(kind="reply", params={"request_id": request_id, "status": status}),
            text_param="body",
        )
        for status in ("done", "failed")
    ]
    asker = request.get("asker") or "a person"
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:ask:{request_id}",
        kind="ask",
        agent=asked,
        uuid=request.get("agent_uuid"),
        since=request.get("created_at"),
        summary=f"{asker} asked {asked}, which no longer runs: {request.get('message', '')}".strip(),
        question=request.get("message"),
        choices=choices,
        command=choices[0].command,
        request_id=request_id,
    )


def _awaiting(run: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (node_id, node) for node_id, node in run.get("nodes", {}).items() if node.get("state") == "awaiting_approval"
    ]


def _approval_entry(run: dict[str, Any], node_id: str, node: dict[str, Any]) -> InboxEntry:
    run_id = run["run_id"]
    message = node.get("message") or ""
    choices = [
        InboxChoice(
            label=label,
            command=_command("workflow", "approve", run_id, node_id, *extra),
            action=InboxAction(
                kind="workflow.approve", params={"run_id": run_id, "node": node_id, "approve": not extra}
            ),
        )
        for label, extra in (("approve", ()), ("reject", ("--reject",)))
    ]
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:approval:{run_id}/{node_id}",
        kind="approval",
        since=node.get("started_at"),
        summary=f"workflow {run.get('workflow_id')} waits for approval at {node_id}"
        + (f": {message}" if message else ""),
        question=message or None,
        choices=choices,
        command=choices[0].command,
        run_id=run_id,
        node=node_id,
    )


def _unseen_entry(agent: dict[str, Any], at: str) -> InboxEntry:
    name = agent["name"]
    look = InboxChoice(label="look", command=_command("agent", "screen", name))
    seen = InboxChoice(
        label="seen",
        command=_command("inbox", "--seen", name),
        action=InboxAction(kind="inbox.seen", params={"target": agent["uuid"]}),
    )
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:unseen_turn:{agent['uuid']}",
        kind="unseen_turn",
        agent=name,
        uuid=agent["uuid"],
        since=at,
        summary=f"{name} finished a turn nobody has looked at yet",
        choices=[look, seen],
        command=look.command,
    )


def _budget_entry(agent: dict[str, Any]) -> InboxEntry:
    """An agent held by its budget: raising it (by what it ran out of) lets it take prompts again."""
    name, held = agent["name"], agent["held"]
    figure = (held.get("reached") or ["tokens"])[0]
    step = raise_step([figure])
    raise_choice = InboxChoice(
        label="raise",
        command=_command("agent", "budget", name, "--raise", step),
        action=InboxAction(kind="agent.budget", params={"target": agent["uuid"], "raise_by": step}),
    )
    look = InboxChoice(label="look", command=_command("agent", "budget", name, "--pretty"))
    used, budget = held.get("used", {}), held.get("budget", {})
    spent = ", ".join(f"{used.get(key)} of {budget.get(key)} {key}" for key in held.get("reached", []))
    return InboxEntry(
        id=f"{LOCAL_MACHINE}:budget:{agent['uuid']}",
        kind="budget",
        agent=name,
        uuid=agent["uuid"],
        since=held.get("at"),
        summary=f"{name} reached its budget ({spent or figure}) and takes no prompts",
        choices=[raise_choice, look],
        command=raise_choice.command,
    )


def on_machine(entry: InboxEntry, machine: str) -> InboxEntry:
    """An entry another machine answered with, as this machine shows it: its id and commands
    name that machine (`wardian --remote NAME ...`)."""
    prefix = shlex.join(["wardian", "--remote", machine])

    def remote(command: str) -> str:
        return prefix + command.removeprefix("wardian") if command.startswith("wardian ") else command

    choices = [choice.model_copy(update={"command": remote(choice.command)}) for choice in entry.choices]
    return entry.model_copy(
        update={
            "id": f"{machine}:{entry.id.partition(':')[2]}",
            "machine": machine,
            "choices": choices,
            "command": remote(entry.command),
        }
    )


def stored_parts(conn: sqlite3.Connection) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What state.db holds for the inbox: the pending asks, and the runs awaiting an approval
    (the agents held by their budget: `wardian_core.db.budgets.held_agents`)."""
    from wardian_core.db.requests import list_requests
    from wardian_core.db.workflow_runs import runs_awaiting_approval

    return list_requests(conn, status="pending"), runs_awaiting_approval(conn)
