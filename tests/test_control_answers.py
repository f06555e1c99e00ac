"""The control wire's answer models dump the JSON clients read today, key for key and in order."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from answer_wire import assert_wired_unchanged
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
from wardian_host.agents.headless import HeadlessRun
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.screens import show_screen
from wardian_host.notify.rules import NoticeRules
from wardian_host.notify.sinks import Sinks
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


# -- the routes whose handlers answered plain data before their models -------------------------


def test_a_screen_answers_the_agent_and_what_its_terminal_shows() -> None:
    agent = LiveAgent(row=stand_in_row(status="processing"), buffer=OutputBuffer(1024))
    agent.is_running = True
    agent.record_output(b"\x1b]0;a title\x07\x1b[31mworking\x1b[0m\r\n> ")
    answer = asyncio.run(show_screen(agent))
    assert answer["title"] == "a title" and answer["rows"][0].startswith("working")
    assert_wired_unchanged("agent.screen", answer)


def test_a_headless_run_answers_its_status_steps_with_their_from() -> None:
    run = HeadlessRun(parser=None)  # type: ignore[arg-type]  # ends by hand here, parses nothing
    run._end("error", "timeout", "5s")
    answer = {"agent": "a1", "uuid": "u-1", "session_mode": "resume"} | {
        "status": "error",
        "exit_code": -9,
        "timed_out": True,
        "session_id": None,
        "events": [{"kind": "session_started", "session_id": "s-1"}],
        "timeline": run.timeline,
        "stderr_tail": "killed\n",
    }
    assert run.timeline[0]["from"] == "starting"
    assert_wired_unchanged("agent.run", answer)


def test_web_open_answers_a_login_url_or_a_login_page_and_a_port_it_did_not_get() -> None:
    served = {"listen": "127.0.0.1", "port": 8421, "loopback": True}
    assert_wired_unchanged("web.open", {"url": "http://127.0.0.1:8421/?login=abc"} | served)
    page = {"url": "http://127.0.0.1:8421/", "login_page": "/home/u/.wardian/web/login.html"}
    assert_wired_unchanged("web.open", page | served | {"port_taken": 8420})
    assert_wired_unchanged("web.revoke", {"revoked": 2})


def test_notify_test_answers_its_notice_and_why_it_went_nowhere() -> None:
    async def sent() -> dict[str, Any]:
        rules = NoticeRules(asyncio.get_running_loop(), lambda: 60.0)
        notice = rules.raise_notice("test", "", "", "Wardian test notice", "notices reach you here")
        return {"notice": notice.model_dump()} | await Sinks(lambda: None, lambda **_: None).send(notice)

    answer = asyncio.run(sent())
    assert answer["sent"] is False and answer["hint"]
    assert_wired_unchanged("notify.test", answer)


def test_a_host_starts_without_building_the_schemas_of_requests_answers_and_workflows() -> None:
    # Each is built at its first use: a host answers a few of some forty kinds of request and
    # most never read a workflow, and building all cost every host's start about 60 ms of CPU.
    code = (
        "import pydantic, wardian_host.daemon.process, wardian_host.daemon.host\n"
        "from wardian_core.control import answers, models\n"
        "from wardian_core.workflows import model\n"
        "print(sorted(c.__name__ for m in (answers, models, model) for c in vars(m).values()\n"
        "    if isinstance(c, type) and issubclass(c, pydantic.BaseModel) and c.__module__ == m.__name__\n"
        "    and c.__pydantic_complete__))"
    )

    built = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    # The control frames themselves are plain models every host reads at once.
    assert built.strip() == "['AttachClientFrame', 'RequestFrame', 'ResponseFrame']"
