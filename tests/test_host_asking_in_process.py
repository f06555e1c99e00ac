"""`ask` and `reply` on the in-process host (`running_host`): a failure names the `AskDesk`
function that broke. The same paths through `wardian` are in tests/e2e/test_ask_reply.py."""

import os
import sys
from pathlib import Path

import pytest
from in_process_agents import ask, read_state, spawn, wait_until

from wardian_core.control.models import AskParams, ReplyParams
from wardian_core.db import requests as request_rows
from wardian_core.errors import WardianError
from wardian_host.testing.answering_agent import READY_PROMPT
from wardian_host.testing.in_process import InProcessHost


def answering_agent(host: InProcessHost, workspace: Path, name: str) -> None:
    """A scripted agent that answers each question with `wardian reply` (its own process)."""
    command = (sys.executable, "-m", "wardian_host.testing.answering_agent")
    spawn(host, workspace, name, *command, settings={"prompt_pattern": f"{READY_PROMPT.strip()} $"})
    wait_until(host, name, "idle")


def test_the_asked_agent_answers_through_its_own_wardian_reply(running_host: InProcessHost, tmp_path: Path) -> None:
    answering_agent(running_host, tmp_path, "oracle")

    answer = ask(running_host, AskParams(target="oracle", message="what is six times seven?", timeout=20))

    assert answer["status"] == "done"
    reply = answer["reply"]
    assert (reply["status"], reply["source"], reply["caller_agent"]) == ("done", "agent", "oracle")
    assert reply["body"] == "answered: what is six times seven?"
    kinds = [event["kind"] for event in answer["events"] if event["kind"] in ("request", "delivery", "reply")]
    assert kinds == ["request", "delivery", "reply"]


def test_an_agent_that_is_not_running_is_not_asked_and_no_request_is_kept(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "sleeper", "sleep", "600")
    running_host.call(running_host.host.lifecycle.stop("sleeper", "kill"))

    with pytest.raises(WardianError) as refused:
        ask(running_host, AskParams(target="sleeper", message="anyone there?", timeout=20))

    assert refused.value.code == "not_live"
    assert read_state(running_host.host.home, request_rows.list_requests) == []


def test_only_the_asked_agent_or_a_person_may_answer(running_host: InProcessHost, tmp_path: Path) -> None:
    answering_agent(running_host, tmp_path, "quiet")  # SILENT: it leaves the question open
    spawn(running_host, tmp_path, "meddler", "sleep", "600")
    asked = ask(running_host, AskParams(target="quiet", message="think it over SILENT", wait=False))
    reply = ReplyParams(request_id=asked["request_id"], status="done", body="42")
    desk, meddler = running_host.host.desk, running_host.host.registry.resolve("meddler")

    with pytest.raises(WardianError) as refused:
        desk.reply(reply, meddler, True, os.getpid())
    answered = desk.reply(reply, None, False, os.getpid())

    assert refused.value.code == "unauthorized" and refused.value.details["caller_agent"] == "meddler"
    assert (answered["reply"]["source"], answered["reply"]["body"]) == ("human", "42")
