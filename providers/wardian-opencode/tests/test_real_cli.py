"""Acceptance through `wardian` itself (`wardian_cli`: each wait checks the event behind its status):
the real OpenCode (1.18.33) against the loopback model server, its interactive turns and permissions
told by OpenCode's own event server (`opencode-events`)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
import wardian_cli
from pty_reading import read_while
from ptyprocess import PtyProcess
from wardian_cli import WARDIAN, WardianCli

from wardian_core.provider.parsing import squeeze, strip_escapes

pytestmark = pytest.mark.real_cli

EVENTS = "opencode-events"


def spawn(wardian: WardianCli, name: str, *args: str) -> dict:
    common = ["--provider", "opencode", "--class", "Coder", "--name", name, "--workspace", str(wardian.workspace)]
    return wardian("agent", "spawn", *common, *args)["agent"]


def turn_request(wardian: WardianCli, token: str) -> str:
    """The body of the newest chat call whose messages carry `token` (not a title request)."""
    for request in reversed(wardian.cli.server.model_requests()):
        body = request.body_text()
        if token in body and "Generate a title" not in body and "title" not in body[:200]:
            return body
    raise AssertionError(f"no model call carried {token}")


def assert_by_events(agent: dict, event: str, rule: str) -> None:
    evidence = agent["status_evidence"]
    assert (evidence["event"], evidence["source"], evidence["rule"]) == (event, EVENTS, rule), evidence


def read_until(terminal: PtyProcess, wanted: str, limit: float = 20) -> str:
    """What an attached terminal showed (escapes stripped, spaces squeezed) once `wanted` shows."""

    def shown(seen: bytes) -> str:
        return squeeze(strip_escapes(seen.decode("utf-8", "replace")))

    return shown(read_while(terminal, lambda seen: wanted not in shown(seen), limit, repr(wanted)))


def assert_the_server_wants_the_agents_password(wardian: WardianCli, uuid: str) -> None:
    folder = wardian.home / "agents" / uuid / "opencode"
    url = f"http://127.0.0.1:{(folder / 'server-port').read_text().strip()}/config"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=10)
    assert refused.value.code == 401
    token = base64.b64encode(f"opencode:{(folder / 'server-password').read_text().strip()}".encode()).decode()
    request = urllib.request.Request(url, headers={"Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200


def test_spawn_is_idle_a_turn_and_an_api_error_are_told_by_the_event_stream_across_a_restart_and_kill_leaves_nothing(
    wardian: WardianCli,
) -> None:
    """One agent from its spawn to its kill (an OpenCode start costs 6 to 10 s of CPU): ready, a
    turn told by the event stream, the session kept over a `host restart`, then an API error
    told by the stream the new host follows, and a kill that leaves no OpenCode process."""
    from host_restarts import status_changes

    skill = wardian.home / "common" / ".agents" / "skills" / "zebra-painter"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: zebra-painter\ndescription: Paints zebras in stripes.\n---\nPaint.\n")
    (wardian.home / "common" / "AGENTS.md").write_text("Wardian common rule: be brief.\n")

    agent = spawn(wardian, "oc")
    # A generous bound: OpenCode's start alone took 51 s on two cores shared with three other real CLIs.
    ready = wardian.wait("oc", "idle", "ready", timeout="120s")
    assert (ready["status_evidence"]["source"], ready["status_evidence"]["rule"]) == ("pty", "ready footer")
    assert_the_server_wants_the_agents_password(wardian, agent["uuid"])

    sent = wardian("send", "hello ECHO:o1", "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    assert_by_events(sent["agent"], "turn_completed", sent["agent"]["status_evidence"]["rule"])
    assert sent["agent"]["status_evidence"]["rule"] in ("session.status idle", "session.idle")
    shown = wardian.show("oc")
    assert shown["provider_session_id"].startswith("ses_")  # from the server's session.created
    # The event stream can tell the turn's end before the TUI drew the reply.
    wardian.output_shows("oc", "MOCK-REPLY o1")
    watched = wardian.watch("oc")
    assert "MOCK-REPLYo1" in "".join(watched["output"].split())
    assert [event["to"] for event in watched["events"]][-2:] == ["processing", "idle"]
    started = watched["events"][-2]["evidence"]
    assert (started["source"], started["rule"]) == (EVENTS, "session.status busy")

    body = turn_request(wardian, "ECHO:o1")
    assert "Wardian common rule: be brief." in body, "the include root's AGENTS.md did not reach the model"
    assert "zebra-painter" in body, "the include root's skill did not reach the model"
    assert not (wardian.workspace / "opencode.json").exists() and not (wardian.workspace / ".opencode").exists()

    # `host restart`: OpenCode runs on in the terminal server, its session and status kept; the
    # new host follows its event stream again, and the next turn is told by it.
    before = wardian.show("oc")
    wardian("host", "restart")
    assert wardian.show("oc") == before
    again = wardian("send", "again ECHO:o2", "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    assert_by_events(again["agent"], "turn_completed", again["agent"]["status_evidence"]["rule"])
    wardian.output_shows("oc", "MOCK-REPLY o2")
    body = turn_request(wardian, "ECHO:o2")
    assert "ECHO:o1" in body and "MOCK-REPLY o1" in body, "the session lost its turn from before the restart"
    assert wardian.show("oc")["provider_session_id"] == before["provider_session_id"]
    changes = status_changes(wardian.home, agent["uuid"])
    assert changes.count(("idle", "turn_completed")) == 2 and changes[-2:] == [
        ("processing", "turn_started"),
        ("idle", "turn_completed"),
    ], changes

    assert_an_api_error_is_an_error_from_the_event_stream_and_kill_leaves_no_process(wardian, agent)


def assert_an_api_error_is_an_error_from_the_event_stream_and_kill_leaves_no_process(
    wardian: WardianCli, agent: dict
) -> None:
    wardian("send", "fail MOCK_HTTP_ERROR:400", "--to", "oc")
    failed = wardian.wait("oc", "error", "error")
    assert_by_events(failed, "error", "session.error")
    assert "mock error 400 requested" in failed["status_evidence"]["message"]

    wardian("agent", "kill", "oc")
    wardian("agent", "wait", "oc", "--until", "off", "--timeout", "30s")
    folder = str(wardian.home / "agents" / agent["uuid"] / "opencode" / "opencode.json")
    wardian_cli.assert_no_process_with("OPENCODE_CONFIG", folder)


def test_a_first_run_in_a_never_seen_repository_asks_nothing(wardian: WardianCli, tmp_path: Path) -> None:
    """OpenCode 1.18 has no folder trust question (none in its binary): a new git repository
    its configuration never saw is worked in at once, by each agent."""
    first_run = WardianCli(wardian.home, wardian_cli.new_repository(tmp_path), wardian.cli, "opencode")
    for name, token in (("first", "fresh1"), ("second", "fresh2")):
        spawn(first_run, name)
        ready = first_run.wait(name, "idle", "ready")
        assert (ready["status_evidence"]["source"], ready["status_evidence"]["rule"]) == ("pty", "ready footer")

        sent = first_run("send", f"hello ECHO:{token}", "--to", name, "--wait-until", "idle", "--timeout", "60s")

        assert_by_events(sent["agent"], "turn_completed", sent["agent"]["status_evidence"]["rule"])
        assert wardian_cli.never_asked(first_run, name)
        assert f"ECHO:{token}" in turn_request(first_run, f"ECHO:{token}")
        first_run.output_shows(name, f"MOCK-REPLY {token}")


def test_a_worktree_asks_nothing_and_keeps_its_repositorys_own_permission_rules(
    wardian: WardianCli, tmp_path: Path
) -> None:
    """OpenCode 1.18 trusts no folder more than another: a worktree of a repository it never saw
    is worked in at once, as the repository would be, and the permission rules the repository
    commits (`opencode.json`, checked out in the worktree) hold there; the file lands in the
    worktree, not the workspace."""
    repository = wardian_cli.new_repository(tmp_path)
    (repository / "opencode.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    subprocess.run(["git", "-C", str(repository), "add", "opencode.json"], check=True)
    first_run = WardianCli(wardian.home, wardian_cli.first_commit(repository), wardian.cli, "opencode")
    folder = Path(first_run.spawn("wt", "--worktree")["worktree_folder"])
    # Generous: an OpenCode start takes a minute on a loaded machine (seen at load 16 on 2 cores).
    first_run.wait("wt", "idle", "ready", timeout="180s")
    assert wardian_cli.never_asked(first_run, "wt")

    first_run("send", "run MOCK_TOOL:echo made-here > made.txt ECHO:w1", "--to", "wt")
    asked = first_run.wait("wt", "action_required", "approval_requested", timeout="120s")
    assert_by_events(asked, "approval_requested", "permission.asked")
    first_run("send", "--approval", "accept", "--to", "wt", "--timeout", "60s")
    first_run.wait("wt", "idle", "turn_completed", timeout="120s")
    assert (folder / "made.txt").read_text() == "made-here\n"
    assert not (repository / "made.txt").exists()


def test_pause_and_resume_continue_the_session_and_attach_shows_the_tui(wardian: WardianCli) -> None:
    spawn(wardian, "oc")
    wardian.wait("oc", "idle", "ready")
    wardian("send", "first ECHO:p1", "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    session = wardian.show("oc")["provider_session_id"]

    wardian("agent", "pause", "oc")
    wardian("agent", "resume", "oc")
    wardian.wait("oc", "idle", "ready")
    sent = wardian("send", "second ECHO:p2", "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    assert sent["agent"]["status_evidence"]["source"] == EVENTS
    assert wardian.show("oc")["provider_session_id"] == session
    body = turn_request(wardian, "ECHO:p2")
    assert "ECHO:p1" in body and "MOCK-REPLY p1" in body, "the resumed session lost its earlier turn"

    # A person attaching sees OpenCode's TUI (its recent screen replayed), and detaches.
    attached = PtyProcess.spawn([WARDIAN, "agent", "attach", "oc"], env=dict(os.environ), dimensions=(40, 120))
    try:
        assert "ctrl+pcommands" in read_until(attached, "ctrl+pcommands")
        attached.write(b"\x1cd")  # Ctrl-\ then d
        assert "detached" in read_until(attached, "detached")
    finally:
        attached.close(force=True)
    assert wardian.show("oc")["status"] == "idle"


def test_a_shell_command_is_approved_then_a_second_refused_then_agent_run_turn_resume_and_api_error(
    wardian: WardianCli,
) -> None:
    """One agent spawned with `shell_permission=ask` (an OpenCode start costs 6 to 10 s of CPU):
    its TUI asks before each shell command, then, paused, its headless runs refuse what asks."""
    spawn(wardian, "oc", "--provider-setting", "shell_permission=ask")
    wardian.wait("oc", "idle", "ready")
    assert_a_shell_command_is_approved_then_a_second_refused(wardian)
    wardian("agent", "pause", "oc")

    first = wardian.run_record(wardian.run("oc", "hello ECHO:h1"))
    assert (first["status"], first["exit_code"], first["session_mode"]) == ("idle", 0, "fresh"), first
    assert first["timeline"][-1] == {
        "from": "processing",
        "to": "idle",
        "event": "turn_completed",
        "rule": "type=step_finish reason=stop",
    }
    session = first["session_id"]
    assert session.startswith("ses_") and wardian.show("oc")["provider_session_id"] == session

    again = wardian.run_record(wardian.run("oc", "again ECHO:h2", "--resume"))
    assert (again["status"], again["session_mode"], again["session_id"]) == ("idle", "resume", session), again
    body = turn_request(wardian, "ECHO:h2")
    assert "ECHO:h1" in body and "MOCK-REPLY h1" in body, "the resumed run lost its earlier turn"

    failed = wardian.run("oc", "fail MOCK_HTTP_ERROR:400")
    assert failed.returncode == 1, failed
    run = json.loads(failed.stderr)["error"]["details"]
    assert run["status"] == "error" and run["timeline"][-1]["rule"] in ("type=error", f"exit {run['exit_code']}")
    assert any(e["kind"] == "error" and e["message"] == "mock error 400 requested" for e in run["events"]), run

    # `run` rejects what asks, then ends without a record saying the turn is over.
    refused = wardian.run_record(wardian.run("oc", "run MOCK_TOOL:touch headless.txt ECHO:h3"))
    assert (refused["status"], refused["exit_code"]) == ("idle", 0), refused
    assert refused["timeline"][-1]["rule"] == "exit 0 while working", refused["timeline"]
    tools = [e["data"] for e in refused["events"] if e.get("data", {}).get("tool") == "bash"]
    assert tools and tools[-1]["status"] == "error" and "rejected" in tools[-1]["error"], refused["events"]
    assert not (wardian.workspace / "headless.txt").exists()


def assert_a_shell_command_is_approved_then_a_second_refused(wardian: WardianCli) -> None:
    wardian("send", "run MOCK_TOOL:touch approved.txt ECHO:t1", "--to", "oc")
    asked = wardian.wait("oc", "action_required", "approval_requested")
    assert_by_events(asked, "approval_requested", "permission.asked")
    assert asked["status_evidence"]["line"] == "touch approved.txt"
    assert not (wardian.workspace / "approved.txt").exists()
    answer = wardian("send", "--approval", "accept", "--to", "oc", "--timeout", "30s")
    assert answer["left_action_required"] is True
    done = wardian.wait("oc", "idle", "turn_completed")
    assert done["status_evidence"]["source"] == EVENTS
    assert (wardian.workspace / "approved.txt").exists()

    wardian("send", "run MOCK_TOOL:touch refused.txt ECHO:t2", "--to", "oc")
    wardian.wait("oc", "action_required", "approval_requested")
    refused = wardian("send", "--approval", "reject", "--to", "oc", "--timeout", "30s")
    assert refused["left_action_required"] is True
    wardian.wait("oc", "idle", "turn_completed")
    assert not (wardian.workspace / "refused.txt").exists()
    changes = wardian.watch("oc")["events"]
    answers = [(e["evidence"]["rule"], e["evidence"].get("answer")) for e in changes if e["from"] == "action_required"]
    assert answers == [("permission.replied once", "accepted"), ("permission.replied reject", "rejected")], answers
    # Both panels were the stream's: the screen, read late or early under load, reported neither
    # (nor opened one after the turn's end, nor closed one before the stream's reply).
    assert not [e for e in changes if e["evidence"]["rule"].startswith("permission panel")], changes


def test_one_agent_reports_usage_is_itself_replies_to_an_ask_and_waits_out_a_usage_limit(
    wardian: WardianCli,
) -> None:
    """Four things of a running agent that need no fresh start, on one OpenCode (each start costs
    10 to 25 s): its usage is what the model server reported for its session's calls, its shell
    tool reaches the host as the agent itself, an ask is answered by its `wardian reply`, and a
    usage limit is waited out (`assert_a_usage_limit_is_waited_out`)."""
    from budget_checks import assert_held_until_raised, cut_by_a_hard_budget
    from model_server.usage import REPORTED
    from usage_checks import figures, one_call, times, usage_after

    agent = spawn(wardian, "oc")
    wardian.wait("oc", "idle", "ready")

    # Usage, from the session's first turn. The Chat Completions wire counts the cached input
    # inside the prompt and the reasoning inside the completion; it has no cache writes, which
    # OpenCode states as 0.
    per_call = one_call(cache_write=0)
    wardian("send", "hello ECHO:used1", "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    # The session's own calls declare its tools; a title request (not the session's) declares none.
    calls = sum(1 for request in wardian.cli.server.model_requests() if '"tools"' in request.body_text())
    reported = usage_after(lambda: wardian("agent", "show", "oc", "--fields", "usage")["agent"]["usage"], calls)
    assert reported["turns"] == calls >= 1
    assert figures(reported) == times(calls, per_call)
    assert reported["cost_usd"] == 0.0  # OpenCode's own table has no price for the mock model: it says 0
    assert reported["context"] == {
        "used": REPORTED.fresh_input + REPORTED.cache_read + REPORTED.output,
        "window": None,
        "fill": None,
    }
    assert reported["model"] == "mock/mock-model"

    # The shell tool reaches the host as the agent. OpenCode has no sandbox and runs bash
    # without asking by default.
    whoami = wardian.workspace / "whoami.json"
    command = f"MOCK_TOOL:wardian host whoami > {whoami.name} ECHO:w1"
    wardian("send", command, "--to", "oc", "--wait-until", "idle", "--timeout", "60s")
    caller = json.loads(whoami.read_text())["caller"]
    tie = "cgroup" if caller["cgroups"]["in_use"] else "ancestry"  # the agent's own cgroup, where there is one
    assert (caller["verification"], caller["tie"]) == ("verified", tie), caller
    assert (caller["agent"]["uuid"], caller["agent"]["name"]) == (agent["uuid"], "oc"), caller

    # An ask is answered by the agent's `wardian reply`, with no dialog on the way.
    question = "what is six times seven? MOCK_TOOL:echo 42 | wardian reply ASK_REQUEST_ID --status done --stdin"
    answer = wardian_cli.ask_answer(wardian_cli.ask_in_background("oc", question))
    wardian_cli.assert_replied_by_the_agent(answer, "42")
    assert "action_required" not in [event.get("to") for event in wardian.watch("oc")["events"]]

    assert_a_usage_limit_is_waited_out(wardian)

    # A hard budget the next turn's first call passes: Esc, twice, interrupts that turn at once
    # (OpenCode's aborted message), the agent is held until raised.
    session_calls = lambda: sum(1 for r in wardian.cli.server.model_requests() if '"tools"' in r.body_text())  # noqa: E731 -- read at each call
    cut = cut_by_a_hard_budget(wardian, "oc", session_calls)
    assert cut["status"] == "idle", cut
    assert_held_until_raised(wardian, "oc")


# Far enough ahead for the turn's first model call to come before the reset on a loaded machine.
LIMIT_AHEAD_SECONDS = 15
CUT_AHEAD_SECONDS = 40


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch(moment: str) -> float:
    return datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp()


def limit_steps(wardian: WardianCli, kind: str) -> list[dict]:
    return [event for event in wardian.watch("oc")["events"] if event["kind"] == kind]


def user_texts(body: str) -> list[str]:
    return [json.dumps(m["content"]) for m in json.loads(body)["messages"] if m["role"] == "user"]


def assert_a_usage_limit_is_waited_out(wardian: WardianCli) -> None:
    """OpenCode 1.18.33 against the model server answering as OpenAI does at a key's limit (429,
    `retry-after`, `x-ratelimit-*`): it waits out `retry-after` by itself and its retry after the
    reset goes on with the turn; given a `retry-after` shorter than the reset it spends its five
    retries and gives up, and Wardian types `continue` once the limit reset."""
    server = wardian.cli.server
    # The ask was answered by a tool during its turn: that turn may still be ending.
    wardian("agent", "wait", "oc", "--until", "idle", "--timeout", "60s")
    reset = int(time.time()) + LIMIT_AHEAD_SECONDS
    prompt = f"limited MOCK_LIMIT:tokens:{reset} ECHO:lim1"
    wardian("send", prompt, "--to", "oc", "--wait-until", "idle", "--timeout", "90s")

    retrying = limit_steps(wardian, "limit_retrying")
    first = retrying[0]["limit"]
    assert (first["kind"], first["state"]) == ("rate", "retrying"), retrying
    # OpenCode's next attempt: the server's retry-after (the seconds left) after its answer.
    assert abs(epoch(first["retry_at"]) - reset) < 2, (reset, retrying)
    assert [step["by"] for step in limit_steps(wardian, "limit_resumed")] == ["cli"]
    assert [r.reply_status for r in server.model_requests() if "ECHO:lim1" in r.body_text()][-2:] == [429, 200]
    assert_by_events(wardian.show("oc"), "turn_completed", "session.status idle")
    wardian.output_shows("oc", "MOCK-REPLY lim1")

    # A retry-after of 1 s before a reset further ahead: five retries, then OpenCode gives up. The
    # reset is far enough ahead that, on a loaded machine too, Wardian's resume comes after the
    # checks of the cut below and after the wait for it has begun.
    wardian("settings", "set", "limits.resume_delay_min_seconds", "1")
    wardian("settings", "set", "limits.resume_delay_max_seconds", "5")
    reset = int(time.time()) + CUT_AHEAD_SECONDS
    prompt = f"cut MOCK_LIMIT:requests:{reset} MOCK_RETRY_AFTER:1 ECHO:lim2"
    wardian("send", prompt, "--to", "oc", "--wait-until", "idle", "--timeout", "90s")

    rested = wardian("agent", "oc", "--fields", "status,status_evidence,limit")["agent"]
    assert_by_events(rested, "limit_reached", "session.error 429")
    limit = rested["limit"]
    # The reset the server gave: its answer's date plus x-ratelimit-reset-requests, not its
    # retry-after (a second later where the server's clock ticked between the two).
    assert (limit["kind"], limit["state"]) == ("rate", "cut"), rested
    assert limit["resets_at"] in (iso(reset), iso(reset + 1)), (reset, rested)
    assert limit["message"].startswith("Rate limit reached for mock-model")
    assert len(limit_steps(wardian, "limit_retrying")) == len(retrying) + 5
    tries = [r.reply_status for r in server.model_requests() if "ECHO:lim2" in r.body_text()]
    assert tries == [429] * 6, tries  # its own try and five retries, all before the reset

    # Once it reset (plus 1-5 s) Wardian types `continue`: the next idle is that turn's end.
    wardian("agent", "wait", "oc", "--until", "idle", "--next", "--timeout", "90s", timeout=120)
    assert [step["by"] for step in limit_steps(wardian, "limit_resumed")] == ["cli", "wardian"]
    continued = server.model_requests()[-1]
    *_, cut, typed = user_texts(continued.body_text())
    assert (continued.reply_status, "ECHO:lim2" in cut, "continue" in typed) == (200, True, True), typed
    assert_by_events(wardian.show("oc"), "turn_completed", "session.status idle")
    assert "error" not in [event.get("to") for event in wardian.watch("oc")["events"]]
