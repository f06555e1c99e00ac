"""`wardian inbox`'s entries: each kind built from what the host knows, most urgent first, each
with the command that answers it; the in-process host's `inbox.list` and `inbox.seen`; the
lines `--follow` prints between two answers."""

from pathlib import Path
from typing import Any

from in_process_agents import spawn, wait_until

from wardian_core.control.models import InboxParams
from wardian_core.db.requests import insert_request
from wardian_core.inbox import Inbox, MachineInbox, machine_entries, on_machine
from wardian_host.answers.inbox import changes
from wardian_host.daemon.person_requests import PersonRequest
from wardian_host.testing.in_process import InProcessHost


def agent(name: str, status: str, since: str, **evidence: Any) -> dict[str, Any]:
    return {
        "name": name,
        "uuid": f"uuid-{name}",
        "status": status,
        "last_status_at": since,
        "status_evidence": evidence,
    }


def ask(request_id: str, asked: str, since: str, status: str = "pending") -> dict[str, Any]:
    return {
        "request_id": request_id,
        "agent": asked,
        "agent_uuid": f"uuid-{asked}",
        "status": status,
        "message": "Is it safe?",
        "asker": "planner",
        "created_at": since,
    }


def run_awaiting(run_id: str, since: str) -> dict[str, Any]:
    nodes = {
        "build": {"state": "completed"},
        "ship": {"state": "awaiting_approval", "message": "Go on?", "started_at": since},
    }
    return {"run_id": run_id, "workflow_id": "release", "nodes": nodes}


def test_entries_come_most_urgent_first_and_oldest_first_within_a_kind() -> None:
    agents = [
        agent("crashed", "error", "2026-01-01T00:00:01Z", exit_code=3),
        agent("late-dialog", "action_required", "2026-01-01T00:00:09Z", dialog="tool"),
        agent("early-dialog", "action_required", "2026-01-01T00:00:05Z", dialog="tool"),
        agent("gone", "off", "2026-01-01T00:00:00Z"),
        agent("busy", "processing", "2026-01-01T00:00:00Z"),
        agent("done", "idle", "2026-01-01T00:00:00Z"),
    ]
    entries = machine_entries(
        agents,
        [ask("ask_1", "gone", "2026-01-01T00:00:02Z")],
        [run_awaiting("run_1", "2026-01-01T00:00:08Z")],
        {"uuid-done": "2026-01-01T00:00:00Z"},
    )
    assert [(entry.kind, entry.agent or entry.run_id) for entry in entries] == [
        ("dialog", "early-dialog"),
        ("dialog", "late-dialog"),
        ("approval", "run_1"),
        ("ask", "gone"),
        ("error", "crashed"),
        ("unseen_turn", "done"),
    ]


def test_a_dialog_carries_its_question_and_both_answers_as_commands_and_actions() -> None:
    waiting = agent("coder", "action_required", "t", dialog="tool", line="Bash(touch x)", reason="tool")
    (entry,) = machine_entries([waiting], [], [])
    assert entry.id == "local:dialog:uuid-coder"
    assert entry.question == "tool: Bash(touch x)"
    assert [choice.command for choice in entry.choices] == [
        "wardian send --approval accept --to coder",
        "wardian send --approval reject --to coder",
    ]
    assert entry.command == entry.choices[0].command
    assert entry.choices[1].action is not None
    assert entry.choices[1].action.model_dump() == {
        "kind": "send",
        "params": {"to": "uuid-coder", "approval": "reject"},
    }


def test_an_error_carries_its_exit_code_and_last_lines_without_escapes() -> None:
    tail = "\x1b[31mstep 1\x1b[0m\r\nstep 2\r\n\r\n" + "".join(f"line {n}\r\n" for n in range(3, 10))
    (entry,) = machine_entries([agent("builder", "error", "t", exit_code=2, output_tail=tail)], [], [])
    assert (entry.kind, entry.exit_code, entry.command) == ("error", 2, "wardian agent restart builder")
    assert entry.last_lines == ["line 5", "line 6", "line 7", "line 8", "line 9"]
    assert entry.summary == "builder ended in error (exit 2): line 9"


def test_only_a_pending_ask_whose_agent_no_longer_runs_needs_a_person() -> None:
    agents = [agent("off-one", "off", "t"), agent("working", "processing", "t"), agent("idle-one", "idle", "t")]
    requests = [
        ask("ask_off", "off-one", "t"),
        ask("ask_working", "working", "t"),
        ask("ask_deleted", "deleted", "t"),
        ask("ask_done", "off-one", "t", status="done"),
    ]
    entries = machine_entries(agents, requests, [])
    assert [entry.request_id for entry in entries] == ["ask_deleted", "ask_off"]
    reply = entries[0].choices[0]
    assert reply.command == f"wardian reply {entries[0].request_id} --status done --stdin"
    assert (reply.text_param, reply.action and reply.action.kind) == ("body", "reply")


def test_a_workflow_approval_is_answered_by_workflow_approve() -> None:
    (entry,) = machine_entries([], [], [run_awaiting("run_9", "t")])
    assert (entry.kind, entry.run_id, entry.node, entry.question) == ("approval", "run_9", "ship", "Go on?")
    assert [choice.command for choice in entry.choices] == [
        "wardian workflow approve run_9 ship",
        "wardian workflow approve run_9 ship --reject",
    ]
    assert entry.choices[1].action is not None and entry.choices[1].action.params["approve"] is False


def test_unseen_turns_are_listed_only_when_asked_for() -> None:
    agents = [agent("done", "idle", "t")]
    assert machine_entries(agents, [], []) == []
    (entry,) = machine_entries(agents, [], [], {"uuid-done": "t2"})
    assert (entry.kind, entry.since, entry.command) == ("unseen_turn", "t2", "wardian agent screen done")


def test_another_machines_entry_answers_through_its_remote() -> None:
    (entry,) = machine_entries([agent("coder", "action_required", "t", dialog="tool")], [], [])
    there = on_machine(entry, "devbox")
    assert (there.id, there.machine) == ("devbox:dialog:uuid-coder", "devbox")
    assert there.command == "wardian --remote devbox send --approval accept --to coder"


def test_follow_prints_each_entry_added_then_removed_and_a_machine_that_fails() -> None:
    local = [MachineInbox(machine="local", entries=1)]
    (crashed,) = machine_entries([agent("crashed", "error", "t", exit_code=1)], [], [])
    first = Inbox(entries=[crashed], machines=local)
    assert [item["change"] for item in changes(None, first)] == ["added"]
    unreachable = MachineInbox(machine="devbox", reachable=False, error={"code": "remote_unreachable"})
    second = Inbox(entries=[], machines=[*local, unreachable])
    assert [(item["change"], item.get("id")) for item in changes(first, second)] == [
        ("removed", crashed.id),
        ("machine", None),
    ]
    assert list(changes(second, second)) == []


def test_the_host_lists_an_error_a_pending_ask_and_an_unseen_turn_and_forgets_a_seen_one(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    host = running_host.host
    spawn(running_host, tmp_path, "worker", "bash", "--norc")
    spawn(running_host, tmp_path, "crasher", "bash", "-c", "echo about to fail; exit 4")
    wait_until(running_host, "worker", "idle")
    crasher = host.registry.resolve("crasher")
    wait_until(running_host, "crasher", "error")
    # An ask left pending when its agent ended: as state.db keeps it.
    insert_request(
        host._conn, request_id="ask_0123456789abcdef", agent_uuid=crasher.uuid, agent_name="crasher",
        message="still there?", until=None, asker="planner", asker_verified=True,
    )  # fmt: skip
    # A finished turn goes unseen as the notice rules decide it (here: they raise it now).
    worker = host.registry.resolve("worker")
    host.notices._turn_unseen(worker.uuid, worker.name)

    answer = _inbox(running_host, unseen=True)
    kinds = [(entry["kind"], entry["agent"]) for entry in answer["entries"]]
    assert kinds == [("ask", "crasher"), ("error", "crasher"), ("unseen_turn", "worker")]
    error = answer["entries"][1]
    assert error["exit_code"] == 4 and "about to fail" in error["last_lines"]
    assert [entry["kind"] for entry in _inbox(running_host, unseen=False)["entries"]] == ["ask", "error"]

    route = host._server._routes["inbox.seen"]  # the route `wardian inbox --seen` asks
    running_host.call(route.answer("inbox.seen", {"target": "worker"}, PersonRequest(None)))
    assert [entry["kind"] for entry in _inbox(running_host, unseen=True)["entries"]] == ["ask", "error"]


def _inbox(running_host: InProcessHost, unseen: bool) -> dict[str, Any]:
    route = running_host.host._server._routes["inbox.list"]
    answer: dict[str, Any] = running_host.call(
        route.answer("inbox.list", InboxParams(unseen=unseen).model_dump(), PersonRequest(None))
    )
    return answer
