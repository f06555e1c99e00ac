"""The control wire's answer models dump the JSON clients read today, key for key and in order."""

import json
from pathlib import Path

from stand_in_rows import stand_in_row

from wardian_core.control.answers import (
    AgentSnapshot,
    AskAnswer,
    BudgetAnswer,
    DeleteAnswer,
    HostStatusAnswer,
    InboxSeenAnswer,
    ReplyAnswer,
    SendAnswer,
    SpawnAnswer,
    TerminalServerStatus,
)
from wardian_core.db.agents import AGENT_COLUMNS
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.output.buffer import OutputBuffer


def _busy_agent() -> LiveAgent:
    """An agent with every column of its row filled, as a long-lived one has them."""
    row = stand_in_row(status="processing", launch_config='{"model": "m"}') | {
        "workspace": "/w",
        "description": "d",
        "pid": 42,
        "started_at": "2026-01-01T00:00:01+00:00",
        "last_status_at": "2026-01-01T00:00:02+00:00",
        "provider_session_id": "s-1",
        "status_evidence": '{"source": "pty"}',
        "provider_settings": '{"effort": "high"}',
        "process_identity": "token",
        "worktree": "wt-1",
        "worktree_folder": "/wt/1",
        "branch": "wardian/a1",
        "limit": '{"kind": "five_hour"}',
    }
    agent = LiveAgent(row=row, buffer=OutputBuffer(1024), status_evidence={"source": "pty", "rule": "spinner"})
    agent.mcp_tools = "connected"
    return agent


def test_an_agent_answers_the_json_of_its_snapshot() -> None:
    for agent in (_busy_agent(), LiveAgent(row=stand_in_row(), buffer=OutputBuffer(1024))):
        assert json.dumps(agent.answer().wire()) == json.dumps(agent.snapshot())


def test_the_snapshot_model_has_each_column_the_row_shows_in_its_order() -> None:
    shown = [column for column in AGENT_COLUMNS if column != "process_identity"]
    named = [field.alias or name for name, field in AgentSnapshot.model_fields.items()]
    assert named == [*shown, "mcp_tools"]


def test_an_answer_leaves_out_the_keys_that_say_nothing_happened() -> None:
    snapshot = _busy_agent().snapshot()
    plain = SpawnAnswer.model_validate(snapshot | {"worktree_made": None}).wire()
    made = SpawnAnswer.model_validate(snapshot | {"worktree_made": {"worktree": {"id": "wt-1"}}}).wire()
    assert json.dumps(plain) == json.dumps(snapshot)
    assert json.dumps(made) == json.dumps(snapshot | {"worktree_made": {"worktree": {"id": "wt-1"}}})
    deleted = DeleteAnswer.model_validate(snapshot | {"worktree_removed": None}).wire()
    assert json.dumps(deleted) == json.dumps(snapshot | {"deleted": True})


def test_a_send_answers_each_targets_outcome_as_it_was_built() -> None:
    reached = {"agent": "a1", "uuid": "u-1", "status": "idle"}
    results = [
        reached | {"result": "delivered", "queued": False, "delivery": {"confirmed_by": "screen", "seconds": 0.2}},
        reached | {"result": "delivered", "queued": True, "delivery": {"confirmed_by": "unconfirmed"}},
        reached | {"result": "failed", "delivered": False, "reason": "not taken"},
        reached | {"result": "failed", "reason": "agent is starting"},
        reached | {"result": "not_live", "reason": "agent is off"},
        reached | {"result": "skipped", "reason": "agent is off: `all` means every live agent"},
        reached | {"result": "budget_reached", "reason": "spent", "hint": None},
    ]
    sent = {"results": results, "sender": None, "sender_verified": None}
    assert json.dumps(SendAnswer.model_validate(sent).wire()) == json.dumps(sent)
    waited = sent | {"delivery": {"confirmed_by": "hook", "seconds": 0.1, "resubmitted": True}}
    snapshot = _busy_agent().snapshot()
    answer = SendAnswer.model_validate(waited | {"agent": snapshot})
    assert json.dumps(answer.wire()) == json.dumps(waited | {"agent": snapshot})


def test_host_status_answers_the_keys_docs_cli_names_in_their_order() -> None:
    host = list(HostStatusAnswer.model_fields)
    terminal_server = list(TerminalServerStatus.model_fields)
    documented = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    assert '"host": {' + ", ".join(f'"{key}"' for key in host) + "}" in documented
    assert "`terminal_server` is `{" + ", ".join(f'"{key}"' for key in terminal_server) + "}`" in documented


def test_a_budget_answers_its_figures_as_summed_an_int_left_an_int() -> None:
    budget = {"tokens": 1000, "usd": 0.5, "minutes": None, "hard": True, "count_cache_reads": False}
    used = {"tokens": 1200, "usd": 0.75, "minutes": 3.25}
    report = {
        "agent": "a1",
        "uuid": "u-1",
        "budget": budget,
        "sources": {"tokens": "agent", "usd": "class", "minutes": "none"},
        "used": used,
        "left": {"tokens": 0, "usd": 0, "minutes": None},  # max(0, overspent) is the int 0
        "reached": ["tokens", "usd"],
        "held": {"budget": budget, "used": used, "reached": ["tokens", "usd"], "at": "2026-01-01T00:00:00+00:00"},
    }
    assert json.dumps(BudgetAnswer.model_validate(report).wire()) == json.dumps(report)


def test_an_ask_and_a_reply_answer_the_request_as_stored() -> None:
    taken = {"caller_pid": 7, "caller_agent": None, "status": "done", "body": "42", "source": "human", "at": "t"}
    replied = {"request_id": "ask_0123456789abcdef", "agent": "a1", "reply": taken}
    assert json.dumps(ReplyAnswer.model_validate(replied).wire()) == json.dumps(replied)
    delivery = {"agent": "a1", "uuid": "u-1", "result": "delivered", "queued": False, "agent_status": "idle"}
    events = [{"kind": "request", "cursor": 3, "at": "t", "request_id": "ask_0123456789abcdef"}]
    asked: dict[str, object] = {"request_id": "ask_0123456789abcdef", "agent": "a1", "status": "done", "reply": taken}
    asked |= {"delivery": delivery, "events": events, "output": "x", "cursor": 9, "more": False}
    assert json.dumps(AskAnswer.model_validate(asked).wire()) == json.dumps(asked)


def test_inbox_seen_answers_the_agent_looked_at() -> None:
    seen = {"agent": "a1", "uuid": "u-1", "seen": True}
    assert json.dumps(InboxSeenAnswer(agent="a1", uuid="u-1").wire()) == json.dumps(seen)
