"""Acceptance through `wardian` itself (`wardian_cli`: each wait checks the event behind its status):
the real Gemini CLI (0.61.0) against the loopback model server."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import wardian_cli
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli

RESUMED_READY_RULES = {
    "ready prompt after hook SessionStart, the resumed history loaded",
    "ready prompt after hook SessionStart, no resume banner within 2 s",
}
# Untrusted, Gemini starts no MCP server: its first `idle` waits out the host's 30 s bound for
# Wardian's tools, after a start that took up to 35 s on a loaded machine.
UNTRUSTED_WHY = "Gemini starts no MCP server in a folder it does not trust (the trust file "


def hook_events(wardian: WardianCli, uuid: str) -> list[str]:
    lines = (wardian.home / "agents" / uuid / "gemini" / "hooks.jsonl").read_text().splitlines()
    return [json.loads(line)["hook_event_name"] for line in lines]


def test_a_turn_and_the_session_outlive_a_crash_of_the_host_and_an_ask_is_answered_by_the_agents_reply(
    wardian: WardianCli,
) -> None:
    """One agent (a Gemini start is the suite's costliest): spawned to idle, a turn, a kill -9 of
    the host and a turn after it, then an ask its shell tool answers through the new host."""
    from host_restarts import crash_host, recorded_file_positions, status_changes

    agent = wardian.spawn("gm")
    ready = wardian.wait("gm", "idle", "ready", timeout="120s")  # a generous bound, for a loaded machine
    assert ready["status_evidence"]["rule"] == "ready prompt after hook SessionStart"
    # Wardian assigned the id up front (--session-id); Gemini's own SessionStart names the same.
    session = ready["provider_session_id"]
    lines = (wardian.home / "agents" / agent["uuid"] / "gemini" / "hooks.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["session_id"] == session

    sent = wardian("send", "hello ECHO:g1", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")
    done = sent["agent"]["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) == ("turn_completed", "gemini-hooks", "hook AfterAgent")
    # AfterAgent fires once the reply streamed in; the TUI can draw it a moment later.
    wardian.output_shows("gm", "MOCK-REPLY g1")
    watched = wardian.watch("gm")
    assert "MOCK-REPLYg1" in "".join(watched["output"].split())
    assert [event["to"] for event in watched["events"]][-2:] == ["processing", "idle"]
    assert watched["events"][-2]["evidence"]["rule"] == "hook BeforeAgent"
    assert hook_events(wardian, agent["uuid"])[-2:] == ["BeforeAgent", "AfterAgent"]

    # kill -9 of the host: Gemini runs on in the terminal server, its session and status kept.
    before = wardian.show("gm")
    crash_host(wardian.home)
    wardian("host", "start")
    assert wardian.show("gm") == before
    again = wardian("send", "again ECHO:g2", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")
    done = again["agent"]["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) == ("turn_completed", "gemini-hooks", "hook AfterAgent")
    wardian.output_shows("gm", "MOCK-REPLY g2")
    body = turn_request(wardian, "ECHO:g2")
    assert "ECHO:g1" in body and "MOCK-REPLY g1" in body, "the session lost its turn from before the crash"
    # Each turn started and ended once, across both hosts; the second's hooks from the same session.
    changes = status_changes(wardian.home, agent["uuid"])
    assert changes.count(("idle", "turn_completed")) == 2 and changes[-2:] == [
        ("processing", "turn_started"),
        ("idle", "turn_completed"),
    ], changes
    assert hook_events(wardian, agent["uuid"])[-4:] == ["BeforeAgent", "AfterAgent", "BeforeAgent", "AfterAgent"]
    # The last AfterAgent left the hook parser at rest: a next host would replay none of the log.
    log_file = wardian.home / "agents" / agent["uuid"] / "gemini" / "hooks.jsonl"
    hooks_read = recorded_file_positions(wardian.home, agent["uuid"], before["pid"])[str(log_file)]
    assert 0 < hooks_read["start"] == hooks_read["read"], hooks_read

    # An ask: the agent's `wardian reply`, a caller held by its start time, reaches the new host.
    question = "what is six times seven? MOCK_TOOL:echo 42 | wardian reply ASK_REQUEST_ID --status done --stdin"
    asking = wardian_cli.ask_in_background("gm", question)
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert asked["line"].startswith("echo 42 | wardian reply ask_"), asked
    wardian("send", "--approval", "accept", "--to", "gm", "--timeout", "30s")
    wardian_cli.assert_replied_by_the_agent(wardian_cli.ask_answer(asking), "42")


def untrusted_folder(wardian: WardianCli) -> Path:
    """A folder the user's Gemini has no trust decision for, with instructions of its own."""
    extra = wardian.workspace.parent / "extra"
    extra.mkdir(exist_ok=True)
    (extra / "GEMINI.md").write_text("Extra rule: mention the zebra.\n")
    return extra


def spawn_with(wardian: WardianCli, name: str, *args: str) -> dict:
    common = ["--provider", "gemini", "--class", "Coder", "--name", name, "--workspace", str(wardian.workspace)]
    return wardian("agent", "spawn", *common, *args)["agent"]


def test_an_untrusted_include_directory_asks_and_accept_adds_it(wardian: WardianCli) -> None:
    extra = untrusted_folder(wardian)
    spawn_with(wardian, "gm", "--include-dir", str(extra))
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert (asked["reason"], asked["dialog"], asked["rule"]) == ("trust", "trust", "trust dialog")
    assert str(extra) in asked["message"]

    answer = wardian("send", "--approval", "accept", "--to", "gm", "--timeout", "30s")
    assert answer["left_action_required"] is True
    left = [event for event in wardian.watch("gm")["events"] if event["from"] == "action_required"]
    assert [(e["evidence"]["event"], e["evidence"].get("answer")) for e in left] == [("approval_resolved", "accepted")]
    wardian.wait("gm", "idle", "ready")
    # Ready only once the dialog is answered: nothing is typed into it as if it were the prompt.
    statuses = [(e["to"], e["evidence"]["event"]) for e in wardian.watch("gm")["events"]]
    assert statuses == [
        ("starting", "launch"),
        ("action_required", "approval_requested"),
        ("starting", "approval_resolved"),
        ("idle", "ready"),
    ]
    rows = wardian("agent", "screen", "gm")["screen"]["rows"]
    assert not any("not added" in row for row in rows), rows
    # The user's own trust file was not written: the answer was "Yes" (this session), not "remember".
    assert str(extra) not in (Path(wardian.cli.home) / ".gemini" / "trustedFolders.json").read_text()


def test_esc_on_the_trust_dialog_is_a_rejection_and_wardians_own_roots_never_ask(wardian: WardianCli) -> None:
    (wardian.home / "common").mkdir(exist_ok=True)  # Wardian's own include root: trusted by Wardian
    extra = untrusted_folder(wardian)
    spawn_with(wardian, "gm", "--include-dir", str(extra))
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert str(extra) in asked["message"] and str(wardian.home / "common") not in asked["message"], asked

    refused = wardian("send", "--approval", "reject", "--to", "gm", "--timeout", "30s")
    assert refused["left_action_required"] is True
    left = [event for event in wardian.watch("gm")["events"] if event["from"] == "action_required"]
    assert [(e["evidence"]["event"], e["evidence"].get("answer")) for e in left] == [("approval_resolved", "rejected")]
    rows = wardian("agent", "screen", "gm")["screen"]["rows"]
    assert any("were not added" in row for row in rows), rows


def turn_request(wardian: WardianCli, token: str) -> str:
    """The body of the newest model call (not the router's) whose prompt carries `token`."""
    for request in reversed(wardian.cli.server.model_requests()):
        body = request.body_text()
        if "streamGenerateContent" in request.path and token in body:
            return body
    raise AssertionError(f"no model call carried {token}")


def test_the_include_root_reaches_the_model_tools_run_as_the_agent_once_approved_never_refused_and_kill_leaves_none(
    wardian: WardianCli,
) -> None:
    """One agent, turn after turn (a Gemini start is the suite's costliest): Wardian's include root
    gives a skill and instructions with no trust question; a tool runs once approved, as the agent
    itself when it calls `wardian`; a refused one leaves nothing; kill leaves no process."""
    skill = wardian.home / "common" / ".agents" / "skills" / "zebra-painter"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: zebra-painter\ndescription: Paints zebras in stripes.\n---\nPaint.\n")
    (wardian.home / "common" / "GEMINI.md").write_text("Wardian common rule: be brief.\n")
    assert "skills" in wardian("providers", "show", "gemini")["provider"]["capabilities"]

    agent = wardian.spawn("gm")
    wardian.wait("gm", "idle", "ready")
    assert [event["to"] for event in wardian.watch("gm")["events"]] == ["starting", "idle"]
    wardian("send", "hello ECHO:s1", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")
    body = turn_request(wardian, "ECHO:s1")
    assert "zebra-painter" in body and "Paints zebras in stripes." in body, "the skill did not reach the model"
    assert "Wardian common rule: be brief." in body, "the include root's GEMINI.md did not reach the model"

    # A tool call approved from Wardian runs.
    wardian("send", "run MOCK_TOOL:touch approved.txt ECHO:t1", "--to", "gm")
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert (asked["source"], asked["rule"], asked["line"]) == (
        "gemini-hooks",
        "hook Notification ToolPermission",
        "touch approved.txt",
    )
    assert (asked["reason"], asked["dialog"]) == ("tool", "tool")
    assert not (wardian.workspace / "approved.txt").exists()
    answer = wardian("send", "--approval", "accept", "--to", "gm", "--timeout", "30s")
    assert answer["left_action_required"] is True
    wardian.wait("gm", "idle", "turn_completed")
    assert (wardian.workspace / "approved.txt").exists()

    # The agent's shell tool reaches the host as itself: Wardian launches Gemini without its
    # sandbox, so the tool runs once approved.
    whoami = wardian.workspace / "whoami.json"
    wardian("send", f"MOCK_TOOL:wardian host whoami > {whoami.name} ECHO:w1", "--to", "gm")
    asked = wardian.wait("gm", "action_required", "approval_requested")["status_evidence"]
    assert asked["line"] == f"wardian host whoami > {whoami.name}", asked
    wardian("send", "--approval", "accept", "--to", "gm", "--timeout", "30s")
    wardian.wait("gm", "idle", "turn_completed")
    caller = json.loads(whoami.read_text())["caller"]
    # Its cgroup where the host can make one per agent, else its process tree (under Gemini's relaunching parent).
    assert caller["verification"] == "verified" and caller["tie"] in {"cgroup", "ancestry"}, caller
    assert (caller["agent"]["uuid"], caller["agent"]["name"]) == (agent["uuid"], "gm"), caller

    # A refused tool call leaves nothing on disk.
    wardian("send", "run MOCK_TOOL:touch refused.txt ECHO:t2", "--to", "gm")
    wardian.wait("gm", "action_required", "approval_requested")
    refused = wardian("send", "--approval", "reject", "--to", "gm", "--timeout", "30s")
    assert refused["left_action_required"] is True
    # The refusal ends the turn with no AfterAgent (0.61.0): its "Request cancelled." line does.
    done = wardian.wait("gm", "idle", "turn_completed")["status_evidence"]
    assert (done["source"], done["rule"], done["message"]) == ("pty", "request cancelled", "cancelled"), done
    assert not (wardian.workspace / "refused.txt").exists()
    hooks = hook_events(wardian, agent["uuid"])
    assert "AfterTool" not in hooks[len(hooks) - hooks[::-1].index("BeforeAgent") :], hooks  # the refused turn's

    wardian("agent", "kill", "gm")
    wardian("agent", "wait", "gm", "--until", "off", "--timeout", "30s")
    habitat = str(wardian.home / "agents" / agent["uuid"] / "habitat")
    wardian_cli.assert_no_process_with("GEMINI_CLI_HOME", habitat)


def test_pause_and_resume_continue_the_same_session_then_agent_run_turns_resumes_and_reports_an_api_error(
    wardian: WardianCli,
) -> None:
    """One agent (a Gemini start is the suite's costliest): paused and resumed in its session,
    then paused again for `wardian agent run` (one Gemini process per session)."""
    wardian.spawn("gm")
    session = wardian.wait("gm", "idle", "ready")["provider_session_id"]
    wardian("send", "first ECHO:p1", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")

    wardian("agent", "pause", "gm")
    paused = wardian.show("gm")["status_evidence"]
    # The host saw the process end (Gemini's SessionEnd hook ends nothing: it also fires on a restart).
    assert (paused["source"], paused["event"], paused["rule"]) == ("host", "exit", "pause"), paused
    wardian("agent", "resume", "gm")
    resumed = wardian.wait("gm", "idle", "ready")
    assert resumed["provider_session_id"] == session
    # Ready once the resumed history loaded ("Resuming session..." drawn and gone), not at the
    # prompt drawn before it, which drops what is typed.
    assert resumed["status_evidence"]["rule"] in RESUMED_READY_RULES, resumed["status_evidence"]
    sent = wardian("send", "second ECHO:p2", "--to", "gm", "--wait-until", "idle", "--timeout", "60s")
    assert sent["agent"]["status_evidence"]["rule"] == "hook AfterAgent"

    # The resumed launch's own hooks (its log starts empty) name the same session, resumed.
    lines = (wardian.home / "agents" / resumed["uuid"] / "gemini" / "hooks.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    assert (start["hook_event_name"], start["session_id"], start["source"]) == ("SessionStart", session, "resume")
    body = turn_request(wardian, "ECHO:p2")
    assert "ECHO:p1" in body and "MOCK-REPLY p1" in body, "the resumed session lost its earlier turn"

    # `wardian agent run`: a fresh headless turn, a resumed one, then an API error.
    wardian("agent", "pause", "gm")  # one Gemini process per session

    first = wardian.run_record(wardian.run("gm", "hello ECHO:h1"))

    assert (first["status"], first["exit_code"], first["timed_out"], first["session_mode"]) == (
        "idle",
        0,
        False,
        "fresh",
    ), first
    assert (first["timeline"][-1]["to"], first["timeline"][-1]["event"]) == ("idle", "turn_completed"), first
    ended = [e for e in first["events"] if e["kind"] == "turn_completed"]
    assert ended and ended[-1]["evidence"]["rule"] == "type=result status=success"
    started = [e for e in first["events"] if e["kind"] == "session_started"]
    session = first["session_id"]
    assert started and started[0]["session_id"] == session  # `init` names the id Wardian assigned
    assert "NumericalClassifierStrategy failed" not in first["stderr_tail"]  # the model server's router answer

    again = wardian.run_record(wardian.run("gm", "again ECHO:h2", "--resume"))

    assert (again["status"], again["session_mode"], again["session_id"]) == ("idle", "resume", session), again
    body = turn_request(wardian, "ECHO:h2")
    assert "ECHO:h1" in body and "MOCK-REPLY h1" in body, "the resumed run lost its earlier turn"

    failed = wardian.run("gm", "fail MOCK_HTTP_ERROR:400")

    assert failed.returncode == 1 and failed.stdout == "", failed
    error = json.loads(failed.stderr)["error"]
    run = error["details"]
    assert (error["code"], run["status"], run["exit_code"]) == ("request_failed", "error", 144), error
    assert run["timeline"][-1]["event"] == "error" and run["timeline"][-1]["rule"] == "type=result status=error"
    assert "mock error 400 requested" in json.dumps(run["events"]) + run["stderr_tail"]


# A user whose Gemini has never seen the folder: Gemini asks about it before anything else.


@pytest.fixture
def first_run(wardian: WardianCli) -> WardianCli:
    """`wardian` for a user with no trust decision at all (the suite's home trusts its workspace
    up front: not here) and a new git repository to work in."""
    (Path(wardian.cli.home) / ".gemini" / "trustedFolders.json").unlink()
    repo = wardian.workspace.parent / "new-repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return dataclasses.replace(wardian, workspace=repo.resolve())


def users_trust_rules(wardian: WardianCli) -> dict[str, str]:
    return json.loads((Path(wardian.cli.home) / ".gemini" / "trustedFolders.json").read_text())


def asked_about_the_folder(wardian: WardianCli, name: str) -> None:
    wardian.spawn(name)
    asked = wardian.wait(name, "action_required", "approval_requested")["status_evidence"]
    assert (asked["reason"], asked["dialog"], asked["rule"], asked["line"]) == (
        "trust",
        "workspace_trust",
        "workspace trust dialog",
        "Do you trust the files in this folder?",
    ), asked
    assert "(1. Trust folder (new-repo) / 2. Trust parent folder (" in asked["message"], asked
    assert asked["message"].endswith(" / 3. Don't trust)"), asked


def answered(wardian: WardianCli, name: str, approval: str) -> dict:
    answer = wardian("send", "--approval", approval, "--to", name, "--timeout", "30s")
    assert answer["left_action_required"] is True
    [left] = [event for event in wardian.watch(name)["events"] if event["from"] == "action_required"]
    return left["evidence"]


def a_turn_reaches_the_model(wardian: WardianCli, name: str, token: str) -> None:
    sent = wardian("send", f"hello ECHO:{token}", "--to", name, "--wait-until", "idle", "--timeout", "60s")
    assert sent["agent"]["status_evidence"]["rule"] == "hook AfterAgent", sent["agent"]
    turn_request(wardian, f"ECHO:{token}")


def started_without_a_question(wardian: WardianCli, name: str, timeout: str = "60s") -> dict[str, Any]:
    """The evidence of its first `idle`, a ready prompt with nothing asked before it."""
    ready: dict[str, Any] = wardian.wait(name, "idle", "ready", timeout=timeout)["status_evidence"]
    assert ready["rule"] == "ready prompt after hook SessionStart", ready
    assert [(e["to"], e["evidence"]["event"]) for e in wardian.watch(name)["events"]] == [
        ("starting", "launch"),
        ("idle", "ready"),
    ]
    return ready


def test_a_new_folder_is_asked_about_once_and_trusted_for_every_later_agent(first_run: WardianCli) -> None:
    asked_about_the_folder(first_run, "gm")

    left = answered(first_run, "gm", "accept")
    assert (left["event"], left["answer"], left["line"]) == (
        "approval_resolved",
        "accepted",
        "Gemini CLI is restarting to apply the trust changes...",
    ), left
    # Gemini restarted itself in the same terminal: ready once the new start's hook fired.
    assert first_run.wait("gm", "idle", "ready")["status_evidence"]["rule"] == "ready prompt after hook SessionStart"
    assert users_trust_rules(first_run)[str(first_run.workspace)] == "TRUST_FOLDER"
    a_turn_reaches_the_model(first_run, "gm", "f1")

    first_run.spawn("gm2")
    started_without_a_question(first_run, "gm2")
    a_turn_reaches_the_model(first_run, "gm2", "f2")
    first_run.cli.assert_only_model_server_was_called()


def test_a_refused_folder_runs_untrusted_and_stays_refused_below_it(first_run: WardianCli) -> None:
    asked_about_the_folder(first_run, "gm")

    left = answered(first_run, "gm", "reject")
    assert (left["event"], left["answer"]) == ("approval_resolved", "rejected"), left
    # Wardian's hooks still run in the untrusted folder (an extension's: settings hooks would not),
    # but no MCP server starts: `idle` comes with the prompt (not after the host's 30 s bound for
    # a listing that cannot come), saying the tools are missing and why.
    ready = first_run.wait("gm", "idle", "ready")["status_evidence"]
    assert (ready["rule"], ready["mcp_tools"]) == ("ready prompt after hook SessionStart", "missing"), ready
    assert ready["mcp_why"].startswith(UNTRUSTED_WHY) and str(first_run.workspace) in ready["mcp_why"], ready
    # "Don't trust": Gemini stays, with the folder untrusted (its footer says so), and remembers it.
    assert any("untrusted" in row for row in first_run("agent", "screen", "gm")["screen"]["rows"])
    assert users_trust_rules(first_run)[str(first_run.workspace)] == "DO_NOT_TRUST"
    a_turn_reaches_the_model(first_run, "gm", "u1")

    below = first_run.workspace / "sub"
    below.mkdir()
    dataclasses.replace(first_run, workspace=below).spawn("gm2")
    started = started_without_a_question(first_run, "gm2")
    assert (started["mcp_tools"], started["mcp_why"][: len(UNTRUSTED_WHY)]) == ("missing", UNTRUSTED_WHY), started
    assert any("untrusted" in row for row in first_run("agent", "screen", "gm2")["screen"]["rows"])
    a_turn_reaches_the_model(first_run, "gm2", "u2")
    assert users_trust_rules(first_run)[str(first_run.workspace)] == "DO_NOT_TRUST", "never made a trust"


def test_a_worktree_is_asked_about_until_its_repository_is_trusted(first_run: WardianCli) -> None:
    """A worktree under the home's default root is its repository's code, not Wardian's: one of a
    repository the user never trusted gets Gemini's question; once the user's rules trust the
    repository, a new worktree of it starts without one, trusted by a rule of its own."""
    wardian_cli.first_commit(first_run.workspace)
    made = first_run.spawn("wt1", "--worktree")
    assert Path(made["worktree_folder"]).is_relative_to(first_run.home / "worktrees")
    # Generous: the question came 35 s after the launch on a loaded machine (load 15 on 2 cores).
    asked = first_run.wait("wt1", "action_required", "approval_requested", timeout="120s")["status_evidence"]
    assert (asked["dialog"], asked["line"]) == ("workspace_trust", "Do you trust the files in this folder?"), asked
    first_run("agent", "kill", "wt1")

    rules_file = Path(first_run.cli.home) / ".gemini" / "trustedFolders.json"
    rules_file.write_text(json.dumps(users_trust_rules(first_run) | {str(first_run.workspace): "TRUST_FOLDER"}))
    second = Path(first_run.spawn("wt2", "--worktree")["worktree_folder"]).resolve()
    first_run("agent", "wait", "wt2", "--until", "idle", "--timeout", "90s")
    assert wardian_cli.never_asked(first_run, "wt2")
    assert users_trust_rules(first_run)[str(second)] == "TRUST_FOLDER"


def test_usage_is_what_the_model_server_reported_for_the_main_models_calls(wardian: WardianCli) -> None:
    from budget_checks import assert_held_until_raised, cut_by_a_hard_budget, held_after_its_turn
    from model_server.usage import REPORTED
    from usage_checks import figures, model_calls, one_call, times, usage_after

    def usage() -> dict:
        return wardian("agent", "show", "gu", "--fields", "usage")["agent"]["usage"]

    # Gemini's wire counts the cached input inside the prompt and the thoughts apart from the
    # candidates; its session log records the main model's (streamed) calls, not the router's.
    per_call = one_call(cache_write=None)
    # yolo: the hard budget's turn runs its tool with no dialog, which would take the interrupt key.
    agent = wardian.spawn("gu", "--provider-setting", "approval_mode=yolo")
    wardian.wait("gu", "idle", "ready")
    wardian("send", "hello ECHO:used1", "--to", "gu", "--wait-until", "idle", "--timeout", "60s")
    calls = model_calls(wardian.cli.server, ":streamGenerateContent")
    reported = usage_after(usage, calls)

    assert reported["turns"] == calls >= 1
    assert figures(reported) == times(calls, per_call)
    # Gemini states no cost and no context window: unknown, not 0.
    assert (reported["cost_usd"], reported["context"]["window"]) == (None, None)
    assert reported["context"]["used"] == REPORTED.fresh_input + REPORTED.cache_read
    assert reported["model"]

    # A hard budget the next turn's first call passes: Esc cancels that turn at once, with no
    # AfterAgent (0.61.0). Its end is the AfterTool of the tool it killed, when Esc came while the
    # tool ran, else the screen's "Request cancelled.". Held until raised (which releases the held
    # call for good: the soft budget comes after).
    session_calls = lambda: model_calls(wardian.cli.server, ":streamGenerateContent")  # noqa: E731 -- read at each call
    cut = cut_by_a_hard_budget(wardian, "gu", session_calls)
    evidence = cut["status_evidence"]
    assert (cut["status"], evidence["event"], evidence["message"]) == ("idle", "turn_completed", "cancelled"), cut
    assert (evidence["source"], evidence["rule"]) in (
        ("gemini-hooks", "hook AfterTool cancelled"),
        ("pty", "request cancelled"),
    )
    hooks = hook_events(wardian, agent["uuid"])
    assert "AfterAgent" not in hooks[len(hooks) - hooks[::-1].index("BeforeAgent") :], hooks  # the cut turn's
    wardian.output_shows("gu", "Request cancelled.")
    assert_held_until_raised(wardian, "gu")

    # A budget the next turn passes: that turn finishes, then the agent is held until raised.
    held_after_its_turn(wardian, "gu", session_calls)
    assert_held_until_raised(wardian, "gu")
