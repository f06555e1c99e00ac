"""`ask` and `reply` on the in-process host (`running_host`): a failure names the `AskDesk`
function that broke. The same paths through `wardian` are in tests/e2e/test_ask_reply.py."""

import os
import sys
from pathlib import Path

import pytest
from in_process_agents import StayingClient, ask, read_state, spawn, wait_until

from wardian_core.control.models import AskParams, AskWaitParams, ReplyParams
from wardian_core.db import requests as request_rows
from wardian_core.errors import WardianError
from wardian_host.agents.watching import output_appears
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
    answered = desk.reply(reply, None, False, os.getpid()).wire()

    assert refused.value.code == "unauthorized" and refused.value.details["caller_agent"] == "meddler"
    assert (answered["reply"]["source"], answered["reply"]["body"]) == ("human", "42")


def test_a_waiting_ask_tells_its_client_the_request_once_the_question_is_typed(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    answering_agent(running_host, tmp_path, "oracle")
    client = StayingClient()

    asking = running_host.host.desk.ask(AskParams(target="oracle", message="why?"), None, False, client)
    answer = running_host.call(asking).wire()

    [told] = [item["asked"] for item in client.items if "asked" in item]
    assert told["request_id"] == answer["request_id"] and answer["status"] == "done"
    request_event = next(event for event in answer["events"] if event["kind"] == "request")
    assert told["since"] == request_event["cursor"] and told["output_from"] >= told["since"]


def test_the_rest_of_a_wait_answers_at_once_with_a_reply_taken_meanwhile(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    answering_agent(running_host, tmp_path, "quiet")
    asked = ask(running_host, AskParams(target="quiet", message="think it over SILENT", wait=False))
    desk = running_host.host.desk
    desk.reply(ReplyParams(request_id=asked["request_id"], status="blocked", body="need a key"), None, False, 1)

    rest = AskWaitParams(request_id=asked["request_id"], since=0)  # no timeout: it must not wait
    answer = running_host.call(desk.wait_for_reply(rest, StayingClient())).wire()

    assert (answer["request_id"], answer["status"]) == (asked["request_id"], "blocked")
    assert answer["reply"]["body"] == "need a key"


def test_the_rest_of_a_wait_counts_a_token_printed_while_no_host_listened(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "echoer", "bash", "--norc", "-c", 'while read x; do echo "seen-$x"; done')
    asked = ask(running_host, AskParams(target="echoer", message="one", until_output="seen-", wait=False))
    agent = running_host.host.registry.resolve("echoer")
    since = asked["delivery"]["cursor"]
    running_host.call(output_appears(agent, "seen-one", 20, None, since))  # printed before the rest is asked

    rest = AskWaitParams(request_id=asked["request_id"], since=since, output_from=since, timeout=20)
    answer = running_host.call(running_host.host.desk.wait_for_reply(rest, StayingClient())).wire()

    assert (answer["status"], answer["reply"]["source"]) == ("done", "output")


def test_the_rest_of_a_wait_for_an_unknown_request_is_not_found(running_host: InProcessHost) -> None:
    rest = AskWaitParams(request_id="ask_0000000000000000", since=0, timeout=1)
    with pytest.raises(WardianError) as refused:
        running_host.call(running_host.host.desk.wait_for_reply(rest, StayingClient()))
    assert (refused.value.code, refused.value.details["request_id"]) == ("not_found", "ask_0000000000000000")
