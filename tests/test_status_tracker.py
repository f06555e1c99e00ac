"""The status tracker's handling of dialogs: the open dialog decides which keys answer it."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import events as event_rows
from wardian_core.db import open_writer
from wardian_core.parsing.events import event
from wardian_core.provider_models import PTY_SOURCE, OutputSource
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.output.buffer import OutputBuffer


def test_a_dialog_replacing_the_open_one_updates_the_evidence_and_wakes_listeners(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name="cc")
    agent = LiveAgent(row=agent_rows.agent_row(row), buffer=OutputBuffer(1024))
    seen: list[tuple[str, str | None]] = []
    agent.listeners.add(lambda live, status: seen.append((status, (live.status_evidence or {}).get("dialog"))))
    tracker = StatusTracker(conn, lambda *_: None)
    tracker.set_status(agent, "starting", {"source": "host"})

    tracker.apply_event(agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust"))
    opened_at = agent.dialog_opened_at
    tracker.apply_event(
        agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust_menu")
    )
    # The same dialog reported again changes nothing.
    tracker.apply_event(
        agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust_menu")
    )

    assert seen == [("starting", None), ("action_required", "trust"), ("action_required", "trust_menu")]
    assert opened_at is not None and agent.dialog_opened_at is not None and agent.dialog_opened_at >= opened_at
    stored = conn.execute("SELECT status, status_evidence FROM agents WHERE uuid = ?", (agent.uuid,)).fetchone()
    assert (stored[0], json.loads(stored[1])["dialog"]) == ("action_required", "trust_menu")
    # Leaving the dialog returns to the status before the first one and clears its time.
    tracker.apply_event(agent, event("approval_resolved", PTY_SOURCE, "prompt", answer="accepted"))
    assert (agent.status, agent.dialog_opened_at) == ("starting", None)
    conn.close()


def test_tool_calls_from_structured_sources_are_recorded_beside_status_changes_and_pruned(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name="cc")
    agent = LiveAgent(row=agent_rows.agent_row(row), buffer=OutputBuffer(1024))
    tracker = StatusTracker(conn, lambda *_: None)
    hooks = OutputSource(name="hooks", kind="file", path=tmp_path / "hooks.jsonl")
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls " + "x" * 5000}, "tool_use_id": "toolu_1"}

    tracker.set_status(agent, "idle", {"source": "host"})
    tracker.apply_event(agent, event("generating", hooks, "hook PreToolUse", "PreToolUse Bash: ls", data=bash))
    tracker.apply_event(agent, event("generating", hooks, "hook PreToolUse", "PreToolUse Bash: ls", data=bash))
    tracker.apply_event(agent, event("generating", PTY_SOURCE, "spinner", data={"tool_name": "Bash"}))  # a guess
    tracker.apply_event(agent, event("generating", hooks, "hook PostToolUse", "PostToolUse Bash: ls", data=bash))

    logged = [(e["kind"], e["payload"]) for e in event_rows.list_events(conn, agent.uuid)]
    # idle; the call that made it processing, then the change; the call's end. The repeat and the guess: none.
    assert [kind for kind, _ in logged] == ["status", "tool_call", "status", "tool_call"]
    assert logged[2][1]["to"] == "processing"
    assert logged[1][1] == {
        "tool": "Bash",
        "event": "generating",
        "source": "hooks",
        "rule": "hook PreToolUse",
        "line": "PreToolUse Bash: ls",
        "tool_use_id": "toolu_1",  # the input itself is not kept: it can be a whole file
    }
    assert logged[3][1]["rule"] == "hook PostToolUse"
    event_rows.prune_events(conn, keep_per_agent=1)
    assert [e["kind"] for e in event_rows.list_events(conn, agent.uuid)] == ["tool_call"]
    conn.close()


def test_a_row_with_a_status_wardian_does_not_have_is_refused_where_it_is_read(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name="cc")
    assert agent_rows.agent_row(row)["status"] == "off"
    with pytest.raises(ValidationError) as refused:
        agent_rows.agent_row(row | {"status": "sleeping"})
    assert refused.value.errors()[0]["loc"] == ("status",)
    conn.close()


def test_a_session_id_is_stored_once_and_kept_in_the_live_row(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name="cc")
    agent = LiveAgent(row=agent_rows.agent_row(row), buffer=OutputBuffer(1024))
    tracker = StatusTracker(conn, lambda *_: None)
    tracker.apply_event(agent, event("session_started", PTY_SOURCE, "hook SessionStart", session_id="s-1"))
    assert agent.row["provider_session_id"] == "s-1"
    assert (agent_rows.get_agent(conn, agent.uuid) or {})["provider_session_id"] == "s-1"
    conn.close()


def test_a_turn_ended_by_one_source_is_not_reopened_by_another_sources_late_news(tmp_path: Path) -> None:
    # Codex tells a turn in its hook log and in its rollout, each followed on its own: on a loaded
    # machine the hook's Stop is read before the rollout's lines of the same turn.
    conn = open_writer(tmp_path)
    identity.create_agent(conn, class_name="Coder", provider="codex", workspace=tmp_path, name="cx")
    [agent] = AgentRegistry(conn, 1024).all()
    tracker = StatusTracker(conn, lambda *_: None)
    hooks = OutputSource(name="codex-hooks", kind="file", path=tmp_path / "hooks.jsonl")
    rollout = OutputSource(name="rollout", kind="file", path=tmp_path / "rollout.jsonl")
    tracker.set_status(agent, "idle", {"source": "host"})
    tracker.apply_event(agent, event("turn_started", hooks, "hook UserPromptSubmit", turn="t1"))
    tracker.apply_event(agent, event("turn_completed", hooks, "hook Stop", turn="t1"))
    tracker.apply_event(agent, event("generating", rollout, "response_item/function_call_output", turn="t1"))
    tracker.apply_event(agent, event("turn_completed", rollout, "event_msg/task_complete", turn="t1"))

    def changes() -> list[tuple[str, str | None]]:
        logged = [e["payload"] for e in event_rows.list_events(conn, agent.uuid) if e["kind"] == "status"]
        return [(change["to"], change["evidence"].get("event")) for change in logged]

    assert changes() == [("idle", None), ("processing", "turn_started"), ("idle", "turn_completed")]
    # The next host takes the agent on from state.db: the stored evidence says which turn ended.
    [adopted] = AgentRegistry(conn, 1024).all()
    tracker.apply_event(adopted, event("generating", rollout, "item_completed CommandExecution", turn="t1"))
    assert adopted.status == "idle"
    # A new turn is news, and the ended turn's late end does not end it.
    tracker.apply_event(adopted, event("turn_started", rollout, "event_msg/task_started", turn="t2"))
    tracker.apply_event(adopted, event("turn_completed", hooks, "hook Stop", turn="t1"))
    assert adopted.status == "processing"
    # Events of no named turn (a screen's) go on as before.
    tracker.apply_event(adopted, event("turn_completed", PTY_SOURCE, "prompt"))
    tracker.apply_event(adopted, event("generating", PTY_SOURCE, "spinner"))
    assert changes()[-3:] == [("processing", "turn_started"), ("idle", "turn_completed"), ("processing", "generating")]
    conn.close()
