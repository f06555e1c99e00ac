"""`wardian ask` / `wardian reply` through real hosts and PTYs: a scripted agent
(`wardian_host.testing.answering_agent`) runs `wardian reply` from its own terminal."""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wardian_core.asks import reply_instruction
from wardian_core.models import AskRecord

WARDIAN = str(Path(sys.executable).parent / "wardian")
ANSWERING = [sys.executable, "-m", "wardian_host.testing.answering_agent"]
REQUEST_ID = re.compile(r"^ask_[0-9a-f]{16}$")


@pytest.fixture
def answering(spawn, wait_status) -> Any:
    def start(name: str = "ans") -> dict[str, Any]:
        agent = spawn(name, *ANSWERING)
        wait_status(name, "idle")
        return agent

    return start


def asked(run_wardian, *args: str) -> dict[str, Any]:
    result = run_wardian("ask", *args)
    assert result.returncode == 0, result.stderr
    return result.json()


def error_of(result: Any) -> dict[str, Any]:
    return json.loads(result.stderr)["error"]


def test_the_asked_agent_replies_from_its_own_terminal(answering, run_wardian) -> None:
    agent = answering()

    answer = asked(run_wardian, "ans", "what is six times seven?", "--timeout", "30s")

    assert REQUEST_ID.match(answer["request_id"])
    assert answer["status"] == "done"
    reply = answer["reply"]
    assert (reply["status"], reply["body"], reply["source"]) == ("done", "answered: what is six times seven?", "agent")
    assert reply["caller_agent"] == "ans" and reply["caller_pid"] > 0
    assert (answer["delivery"]["result"], answer["delivery"]["uuid"]) == ("delivered", agent["uuid"])
    kinds = [event["kind"] for event in answer["events"]]
    assert kinds[0] == "request" and kinds.index("delivery") < kinds.index("reply")
    # The instruction, with this request's id, was typed after the question.
    assert reply_instruction(answer["request_id"]) in "".join(answer["output"].split("\n"))
    stored = run_wardian("ask", "show", answer["request_id"]).json()["request"]
    AskRecord.model_validate(stored)
    assert (stored["status"], stored["reply"], stored["asker"]) == ("done", reply, None)
    watched = {event["kind"] for event in run_wardian("agent", "watch", "ans").json()["watch"]["events"]}
    assert {"status", "request", "delivery", "reply"} <= watched


@pytest.mark.parametrize("status", ["blocked", "failed"])
def test_a_blocked_or_failed_reply_is_the_answer_not_an_error(answering, run_wardian, status: str) -> None:
    answering()

    answer = asked(run_wardian, "ans", f"deploy it STATUS:{status}", "--timeout", "30s")

    assert (answer["status"], answer["reply"]["status"], answer["reply"]["source"]) == (status, status, "agent")


def test_a_second_reply_is_refused_and_the_first_kept(answering, run_wardian) -> None:
    answering()
    first = asked(run_wardian, "ans", "first question", "--timeout", "30s")

    again = run_wardian("reply", first["request_id"], "--status", "failed", "late answer")

    assert again.returncode == 1
    error = error_of(again)
    assert error["code"] == "duplicate_reply" and error["details"]["reply"] == first["reply"]
    kept = run_wardian("ask", "show", first["request_id"]).json()["request"]
    assert (kept["status"], kept["reply"]["body"]) == ("done", "answered: first question")


@pytest.mark.parametrize("request_id", ["ask_0123456789abcdef", "not-a-request"])
def test_an_unknown_request_id_is_not_found(answering, run_wardian, request_id: str) -> None:
    answering()

    result = run_wardian("reply", request_id, "--status", "done", "hello")

    assert result.returncode == 2
    assert error_of(result)["code"] == "not_found"
    assert run_wardian("ask", "show", request_id).returncode == 2


def test_no_reply_in_time_is_a_watch_timeout_and_a_person_can_still_answer(answering, run_wardian) -> None:
    answering()

    waited = run_wardian("ask", "ans", "think hard SILENT", "--timeout", "1s")

    assert waited.returncode == 1
    error = error_of(waited)
    assert error["code"] == "watch_timeout"
    request_id = error["details"]["request_id"]
    pending = run_wardian("ask", "list", "--status", "pending").json()["requests"]
    assert [request["request_id"] for request in pending] == [request_id]
    # A person's terminal: no agent claimed, none identified.
    answered = run_wardian("reply", request_id, "--status", "done", "--stdin", input="42\n")
    assert answered.returncode == 0, answered.stderr
    assert answered.json()["reply"]["source"] == "human" and answered.json()["reply"]["caller_agent"] is None
    stored = run_wardian("ask", "show", request_id).json()["request"]
    assert (stored["status"], stored["reply"]["body"], stored["reply"]["source"]) == ("done", "42\n", "human")
    assert run_wardian("ask", "list", "--status", "pending").json()["requests"] == []


def test_another_agent_may_not_answer_even_naming_the_asked_agent(
    answering, spawn, wait_status, run_wardian, workspace: Path
) -> None:
    asked_agent = answering()
    request_id = asked(run_wardian, "ans", "a secret SILENT", "--no-wait")["request_id"]
    spawn("intruder", "bash", "--norc", "--noprofile")
    wait_status("intruder", "idle")
    command = (
        f"WARDIAN_SESSION_ID={asked_agent['uuid']} {WARDIAN} reply {request_id} --status done forged "
        f"2> {workspace}/forged.json; echo FORGED-$?"
    )

    # The shell's prompt coming back (its OSC 133 mark) says the command finished.
    done = run_wardian("send", command, "--to", "intruder", "--raw", "--wait-until", "idle", "--timeout", "30s")

    assert done.returncode == 0, done.stderr
    assert "FORGED-1" in run_wardian("agent", "watch", "intruder").json()["watch"]["output"]
    error = json.loads((workspace / "forged.json").read_text())["error"]
    assert error["code"] == "unauthorized"
    assert (error["details"]["caller_agent"], error["details"]["verified"]) == ("intruder", True)
    # A person's process that only sets the variable claims the agent: refused too.
    claimed = run_wardian("reply", request_id, "--status", "done", "x", env={"WARDIAN_SESSION_ID": asked_agent["uuid"]})
    assert error_of(claimed)["code"] == "unauthorized" and error_of(claimed)["details"]["verified"] is False
    assert run_wardian("ask", "show", request_id).json()["request"]["status"] == "pending"


def test_a_pending_ask_survives_a_host_restart_and_is_answered_after_it(answering, run_wardian) -> None:
    answering()
    request_id = asked(run_wardian, "ans", "long job SILENT", "--no-wait")["request_id"]

    assert run_wardian("host", "stop").returncode == 0
    # Without a host the stored requests still answer.
    assert run_wardian("ask", "show", request_id).json()["request"]["status"] == "pending"
    assert run_wardian("host", "start").returncode == 0
    answered = run_wardian("reply", request_id, "--status", "done", "finished after the restart")

    assert answered.returncode == 0, answered.stderr
    stored = run_wardian("ask", "show", request_id).json()["request"]
    assert (stored["status"], stored["reply"]["body"]) == ("done", "finished after the restart")


def test_an_ask_to_an_agent_that_is_not_live_fails_at_once(answering, run_wardian) -> None:
    answering()
    assert run_wardian("agent", "pause", "ans").returncode == 0

    result = run_wardian("ask", "ans", "anyone there?", "--timeout", "30s")

    assert result.returncode == 1
    assert error_of(result)["code"] == "not_live"
    assert run_wardian("ask", "list").json()["requests"] == []


def test_output_fallback_ignores_the_echo_of_the_question(spawn, wait_status, run_wardian) -> None:
    spawn("sh1", "bash", "--norc", "--noprofile")
    wait_status("sh1", "idle")

    # The terminal echoes the question, token and all; only a printed token would complete it.
    echoed = run_wardian("ask", "sh1", "true TOKEN-9", "--until", "output:TOKEN-9", "--timeout", "2s")
    printed = run_wardian("ask", "sh1", "echo TOKEN-$((40+2))", "--until", "output:TOKEN-42", "--timeout", "30s")

    assert error_of(echoed)["code"] == "watch_timeout"
    assert printed.returncode == 0, printed.stderr
    answer = printed.json()
    assert (answer["status"], answer["reply"]["source"], answer["reply"]["body"]) == ("done", "output", None)
    assert "TOKEN-42" in answer["output"]
    # An agent that cannot run `wardian reply` is not told to.
    assert "wardian reply" not in answer["output"]


def test_bad_input_is_refused_before_anything_is_asked(answering, run_wardian) -> None:
    answering()

    no_message = run_wardian("ask", "ans")
    two_messages = run_wardian("ask", "ans", "hi", "--stdin", input="there")
    bad_until = run_wardian("ask", "ans", "hi", "--until", "status:idle")
    bad_status = run_wardian("reply", "ask_0123456789abcdef", "--status", "maybe", "x")
    unknown_agent = run_wardian("ask", "nobody", "hi")

    assert [error_of(r)["code"] for r in (no_message, two_messages, bad_until, bad_status)] == ["usage"] * 4
    assert error_of(unknown_agent)["code"] == "not_found" and unknown_agent.returncode == 2
    assert run_wardian("ask", "list").json()["requests"] == []


def test_ask_list_filters_by_agent_and_status(answering, run_wardian) -> None:
    answering("a1")
    answering("a2")
    done = asked(run_wardian, "a1", "one", "--timeout", "30s")["request_id"]
    open_one = asked(run_wardian, "a2", "two SILENT", "--no-wait")["request_id"]

    by_agent = run_wardian("ask", "list", "--agent", "a2").json()["requests"]
    by_status = run_wardian("ask", "list", "--status", "done").json()["requests"]

    assert [r["request_id"] for r in by_agent] == [open_one]
    assert [r["request_id"] for r in by_status] == [done]
    assert subprocess.run([WARDIAN, "ask", "--help"], capture_output=True).returncode == 0
