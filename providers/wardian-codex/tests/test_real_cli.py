"""Acceptance through `wardian` itself (`wardian_cli`: each wait checks the event behind its status):
the real Codex CLI (0.169.0) against the loopback model server."""

from __future__ import annotations

import json
import os
import subprocess
import time
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
import pytest
import wardian_cli
from polling import polled_until
from wardian_cli import WARDIAN, WardianCli
from wardian_homes import wardian_for

from wardian_codex import plugin
from wardian_core.provider import LaunchConfig, SpawnContext
from wardian_host.terminal import process_tree

pytestmark = pytest.mark.real_cli


class Wardian(WardianCli):
    def thread_id(self, name: str, timeout: float = 15) -> str:
        """The thread id arrives shortly after readiness (Codex creates its lock file then)."""
        deadline = time.monotonic() + timeout
        while (session := self.show(name)["provider_session_id"]) is None:
            assert time.monotonic() < deadline, "no Codex thread id was stored"
            time.sleep(0.2)
        return session

    def codex_home(self, uuid: str) -> Path:
        return self.home / "agents" / uuid / "habitat" / ".codex"


# A turn's end: the Stop hook or the rollout's task_complete, whichever the host reads first.
TURN_ENDS = {("turn_completed", "codex-hooks", "hook Stop"), ("turn_completed", "rollout", "event_msg/task_complete")}
# A host that adopts a running agent follows its rollout as a resumed thread's (from where the
# last host stopped reading): its turn's end can be read there before the Stop hook's line.
ADOPTED_TURN_ENDS = TURN_ENDS | {("turn_completed", "rollout-resumed", "event_msg/task_complete")}


def hook_events(wardian: Wardian, uuid: str, thread: str) -> list[str]:
    """The events in the agent's hook log, each checked to belong to `thread`."""
    lines = (wardian.home / "agents" / uuid / "codex" / "hooks.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {record["session_id"] for record in records} == {thread}, records
    return [record["hook_event_name"] for record in records]


def last_user_message(request) -> str:
    try:
        items = json.loads(request.body_text()).get("input", [])
    except ValueError:
        return ""
    users = [item for item in items if isinstance(item, dict) and item.get("role") == "user"]
    return json.dumps(users[-1]) if users else ""


def asks_for_a_title(request) -> bool:
    """Codex 0.169.0 asks the model for a task title beside the turn: not the thread's call."""
    return "task title" in last_user_message(request)


def turn_request(server, token: str):
    """The model request of the turn whose newest user message carries `token` (not a title request)."""
    for request in reversed(server.requests):
        try:
            items = json.loads(request.body_text()).get("input", [])
        except ValueError:
            continue
        users = [item for item in items if isinstance(item, dict) and item.get("role") == "user"]
        if users and token in json.dumps(users[-1]) and "task title" not in json.dumps(users[-1]):
            return request
    raise AssertionError(f"no model request carried {token}")


def untrusted_git_workspace(wardian: Wardian) -> None:
    """A git workspace the user's own Codex config does not trust: Codex 0.169 asks at launch."""
    subprocess.run(["git", "init", "-q", str(wardian.workspace)], check=True)
    config = Path(wardian.cli.home) / ".codex" / "config.toml"
    text = config.read_text()
    config.write_text(text[: text.index("[projects.")])


@pytest.fixture
def wardian(codex_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Wardian]:
    """The conftest's `wardian`, with Codex's helpers."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    with wardian_for(
        codex_cli, tmp_path, monkeypatch, {"MOCK_MODEL_API_KEY": codex_cli.env["MOCK_MODEL_API_KEY"]}, Wardian
    ) as wardian:
        yield wardian


def test_spawn_is_idle_with_its_thread_a_turn_shows_in_watch_wardian_runs_as_the_agent_and_approvals_are_answered(
    wardian: Wardian,
) -> None:
    """One agent, turn after turn (each Codex start costs seconds of CPU): spawned to idle with its
    thread, a turn seen in watch, `wardian` run from its shell tool as the agent itself, asks it
    answers with and without a dialog, then an escalated command approved and a second refused."""
    skill = wardian.home / "common" / ".agents" / "skills" / "wardian-demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: wardian-demo-skill\ndescription: Demo skill from Wardian's common include root.\n---\nSay DEMO.\n"
    )
    (wardian.home / "common" / "AGENTS.md").write_text("Wardian common rule: be brief.\n")

    agent = wardian.spawn("cx")
    ready = wardian.wait("cx", "idle", "ready")
    assert ready["status_evidence"]["source"] == "pty"
    # The ready prompt as a person sees it: the words apart, as the TUI laid them out.
    rows = wardian("agent", "screen", "cx")["screen"]["rows"]
    assert any("? for shortcuts" in row for row in rows), rows
    thread = wardian.thread_id("cx")
    # The id Codex itself uses for this session, discovered without a model turn.
    assert (wardian.codex_home(agent["uuid"]) / "thread-writer-locks" / f"{thread}.lock").exists()
    assert not wardian.cli.server.model_requests()
    assert not list((wardian.codex_home(agent["uuid"]) / "sessions").glob("**/rollout-*.jsonl"))

    sent = wardian("send", "hello ECHO:w1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")
    # Two structured signals end a turn within a millisecond of each other: the first read decides.
    done = sent["agent"]["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) in TURN_ENDS
    # Wardian's hooks are trusted by the real CLI: they fired, for this thread.
    assert hook_events(wardian, agent["uuid"], thread) == ["SessionStart", "UserPromptSubmit", "Stop"]
    # The Stop hook can come before the TUI drew the reply.
    wardian.output_shows("cx", "MOCK-REPLY w1")
    watched = wardian.watch("cx")
    # The TUI draws spaces by moving the cursor: compare without whitespace.
    assert "MOCK-REPLYw1" in "".join(watched["output"].split())
    assert [event["to"] for event in watched["events"]][-2:] == ["processing", "idle"]
    assert watched["events"][-2]["evidence"]["event"] == "turn_started"
    # The skill from the include root and its instructions reached the model.
    body = turn_request(wardian.cli.server, "ECHO:w1").body_text()
    assert "wardian-demo-skill" in body and "Wardian common rule: be brief." in body

    # The agent's shell tool reaches the host as itself (no dialog: none asked before the asks).
    # Workspace-write (the user's config here) denies connect() to any socket; Wardian's rule
    # lets the `wardian` command itself out of the sandbox, without a dialog.
    wardian("send", "MOCK_TOOL:wardian host whoami ECHO:wh1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")

    caller = json.loads(tool_output(wardian.cli.server, "wardian host whoami"))["caller"]
    tie = "cgroup" if caller["cgroups"]["in_use"] else "ancestry"  # the agent's own cgroup, where there is one
    assert (caller["verification"], caller["tie"]) == ("verified", tie), caller
    assert (caller["agent"]["uuid"], caller["agent"]["name"]) == (agent["uuid"], "cx"), caller
    assert "action_required" not in [event.get("to") for event in wardian.watch("cx")["events"]]

    # Anything more than the bare command (here a redirection) stays in the sandbox: refused.
    wardian(
        "send",
        "MOCK_TOOL:wardian host whoami > whoami.json ECHO:wh2",
        "--to",
        "cx",
        "--wait-until",
        "idle",
        "--timeout",
        "60s",
    )
    refused = json.loads(tool_output(wardian.cli.server, "whoami.json"))["error"]
    assert (refused["code"], refused["details"]["reason"]) == ("app_not_running", "[Errno 1] Operation not permitted")
    assert (wardian.workspace / "whoami.json").read_text() == ""

    # An ask, answered by the agent's `wardian reply`: the only dialog before the escalations.
    # A pipeline into `wardian` stays in the sandbox (connect() refused): the model asks to
    # run it escalated, which is a dialog the user answers.
    question = (
        "what is six times seven? MOCK_ESCALATE MOCK_TOOL:echo 42 | wardian reply ASK_REQUEST_ID --status done --stdin"
    )
    asking = wardian_cli.ask_in_background("cx", question)
    wardian.wait("cx", "action_required", "approval_requested")
    wardian("send", "--approval", "accept", "--to", "cx", "--timeout", "30s")
    answer = wardian_cli.ask_answer(asking)
    wardian_cli.assert_replied_by_the_agent(answer, "42")

    # The bare `wardian reply` is let out of the sandbox by Wardian's rule: no dialog.
    wardian.wait("cx", "idle", "turn_completed")
    again = "and seven times six? MOCK_TOOL:wardian reply ASK_REQUEST_ID --status done 42"
    plain = wardian_cli.ask_answer(wardian_cli.ask_in_background("cx", again))
    wardian_cli.assert_replied_by_the_agent(plain, "42")
    assert plain["request_id"] != answer["request_id"]
    dialogs = [event for event in wardian.watch("cx")["events"] if event.get("to") == "action_required"]
    assert len(dialogs) == 1, dialogs
    wardian.wait("cx", "idle", "turn_completed")  # the turn that replied ends before the next prompt

    # An escalated command, approved; then a second, refused.
    wardian("send", "run MOCK_ESCALATE MOCK_TOOL:touch approved.txt ECHO:a1", "--to", "cx")
    asked = wardian.wait("cx", "action_required", "approval_requested")
    # The dialog on screen (where it takes keys), named by the PermissionRequest hook that asked for it.
    evidence = asked["status_evidence"]
    rule = "approval dialog after hook PermissionRequest"
    assert (evidence["source"], evidence["rule"], evidence["line"]) == ("pty", rule, "touch approved.txt")
    assert (
        evidence["message"] == "Codex asks to run Bash: touch approved.txt (mock wants to run this outside the sandbox)"
    )
    assert (evidence["reason"], evidence["dialog"]) == ("tool", "exec")
    assert not (wardian.workspace / "approved.txt").exists()
    answer = wardian("send", "--approval", "accept", "--to", "cx", "--timeout", "30s")
    assert answer["left_action_required"] is True
    # The turn goes on: back to processing, the status it had when the dialog opened.
    left = answer["agent"]
    assert (left["status"], left["status_evidence"]["event"]) == ("processing", "approval_resolved"), left
    assert left["status_evidence"]["answer"] == "accepted"
    done = wardian.wait("cx", "idle", "turn_completed")["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) in TURN_ENDS
    assert (wardian.workspace / "approved.txt").exists()

    wardian("send", "run MOCK_ESCALATE MOCK_TOOL:touch refused.txt ECHO:a2", "--to", "cx")
    wardian.wait("cx", "action_required", "approval_requested")
    rejected = wardian("send", "--approval", "reject", "--to", "cx", "--timeout", "30s")
    assert rejected["left_action_required"] is True
    refused = wardian.wait("cx", "idle", "turn_completed")
    # The turn's end comes from the rollout, whether the screen's answer was read before it or not.
    assert refused["status_evidence"]["rule"] == "event_msg/turn_aborted"
    assert not (wardian.workspace / "refused.txt").exists()
    # The escalation's own answer, among the status changes (an ask's events carry no evidence).
    changes = [event for event in wardian.watch("cx")["events"] if "evidence" in event]
    asked_at = next(i for i, event in enumerate(changes) if event["evidence"].get("line") == "touch approved.txt")
    answers = [event["evidence"].get("answer") for event in changes[asked_at:]]
    assert "accepted" in answers


def test_pause_and_resume_continue_the_thread_without_a_trust_dialog(wardian: Wardian) -> None:
    untrusted_git_workspace(wardian)  # Codex 0.169 would ask
    wardian("settings", "set", "providers.codex.trust_workspace", "true")

    wardian.spawn("cx")
    wardian.wait("cx", "idle", "ready")
    thread = wardian.thread_id("cx")
    wardian("send", "first ECHO:p1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")

    wardian("agent", "pause", "cx")
    wardian("agent", "wait", "cx", "--until", "off", "--timeout", "30s")
    paused = wardian.show("cx")["status_evidence"]
    assert paused["source"] == "host" and "pause" in json.dumps(paused), paused
    wardian("agent", "resume", "cx")
    wardian.wait("cx", "idle", "ready")
    assert wardian.show("cx")["provider_session_id"] == thread
    sent = wardian("send", "second ECHO:p2", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")
    done = sent["agent"]["status_evidence"]
    resumed_ends = {
        ("turn_completed", "codex-hooks", "hook Stop"),
        ("turn_completed", "rollout-resumed", "event_msg/task_complete"),
    }
    assert (done["event"], done["source"], done["rule"]) in resumed_ends
    # The resumed launch's hooks (its log starts empty) name the same thread.
    assert hook_events(wardian, wardian.show("cx")["uuid"], thread) == ["SessionStart", "UserPromptSubmit", "Stop"]

    body = turn_request(wardian.cli.server, "ECHO:p2").body_text()
    assert "ECHO:p1" in body and "MOCK-REPLY p1" in body, "the resumed thread lost its earlier turn"
    assert "Trustthisfolder" not in "".join(wardian.watch("cx")["output"].split())


def test_screen_shows_the_trust_dialog_with_its_spaces(wardian: Wardian) -> None:
    untrusted_git_workspace(wardian)

    wardian.spawn("cx")
    asked = wardian.wait("cx", "action_required", "approval_requested")
    assert (asked["status_evidence"]["reason"], asked["status_evidence"]["dialog"]) == ("trust", "trust")
    rows = wardian("agent", "screen", "cx")["screen"]["rows"]
    assert any("Trust this folder?" in row for row in rows), rows

    answer = wardian("send", "--approval", "accept", "--to", "cx", "--timeout", "30s")
    assert answer["left_action_required"] is True
    # Leaving the dialog returns to `starting`, the status before it; Codex's prompt drawn after
    # the trust is what makes it idle, a moment later on a busy machine.
    wardian.wait("cx", "idle", "ready")
    left = [event["evidence"] for event in wardian.watch("cx")["events"] if event["from"] == "action_required"]
    assert [(evidence["event"], evidence.get("answer")) for evidence in left] == [("approval_resolved", "accepted")]
    sent = wardian("send", "hello ECHO:t1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")
    assert sent["agent"]["status_evidence"]["event"] == "turn_completed"
    wardian.output_shows("cx", "MOCK-REPLY t1")  # the Stop hook can come before the TUI drew it

    # The answer was kept in the agent's Codex home: the next launch does not ask again.
    wardian("agent", "pause", "cx")
    wardian("agent", "resume", "cx")
    wardian.wait("cx", "idle", "ready")
    resumed = [event["to"] for event in wardian.watch("cx")["events"]]
    assert resumed[resumed.index("off") :] == ["off", "starting", "idle"], resumed


def test_a_trust_the_user_gave_a_parent_folder_spares_the_dialog(wardian: Wardian) -> None:
    untrusted_git_workspace(wardian)
    config = Path(wardian.cli.home) / ".codex" / "config.toml"
    config.write_text(config.read_text() + f'\n[projects."{wardian.workspace.parent}"]\ntrust_level = "trusted"\n')

    wardian.spawn("cx")

    wardian.wait("cx", "idle", "ready")
    assert [event["to"] for event in wardian.watch("cx")["events"]] == ["starting", "idle"]


def test_a_rejected_trust_dialog_leaves_codex_in_its_command_center(wardian: Wardian) -> None:
    untrusted_git_workspace(wardian)

    wardian.spawn("cx")
    wardian.wait("cx", "action_required", "approval_requested")
    answer = wardian("send", "--approval", "reject", "--to", "cx", "--timeout", "30s")
    assert answer["left_action_required"] is True
    left = wardian.show("cx")["status_evidence"]
    assert (left["event"], left["answer"], left["line"]) == ("approval_resolved", "rejected", "Agent command center")
    rows = wardian("agent", "screen", "cx")["screen"]["rows"]
    assert any("Agent command center" in row for row in rows), rows


# -- the first run in a folder the user's Codex has never seen --


@pytest.fixture
def first_run(wardian: Wardian, tmp_path: Path) -> Wardian:
    """Agents spawned in a new git repository that the user's config.toml says nothing about."""
    return Wardian(wardian.home, wardian_cli.new_repository(tmp_path), wardian.cli, "codex")


def user_trust(wardian: Wardian) -> object:
    config = tomllib.loads((Path(wardian.cli.home) / ".codex" / "config.toml").read_text())
    return config.get("projects", {}).get(str(wardian.workspace), {}).get("trust_level")


def asks_to_trust(wardian: Wardian, name: str) -> None:
    """Codex asks as it starts, before its prompt: the question on screen and in the evidence."""
    evidence = wardian.wait(name, "action_required", "approval_requested")["status_evidence"]
    assert (evidence["source"], evidence["reason"], evidence["dialog"]) == ("pty", "trust", "trust"), evidence
    assert evidence["message"].startswith("Codex asks as it starts (before its prompt)"), evidence
    assert "Trust this folder?" in evidence["message"], evidence
    rows = wardian("agent", "screen", name)["screen"]["rows"]
    assert any("Trust this folder?" in row for row in rows), rows
    events = wardian.watch(name)["events"]
    assert [event["to"] for event in events] == ["starting", "action_required"], events


def takes_a_turn(wardian: Wardian, name: str, token: str) -> None:
    sent = wardian("send", f"hello ECHO:{token}", "--to", name, "--wait-until", "idle", "--timeout", "60s")
    done = sent["agent"]["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) in TURN_ENDS
    turn_request(wardian.cli.server, f"ECHO:{token}")
    wardian.output_shows(name, f"MOCK-REPLY {token}")


def test_a_trust_accepted_once_is_not_asked_again_by_the_next_agent(first_run: Wardian) -> None:
    first_run.spawn("first")
    asks_to_trust(first_run, "first")

    answer = first_run("send", "--approval", "accept", "--to", "first", "--timeout", "30s")

    assert answer["left_action_required"] is True
    first_run.wait("first", "idle", "ready")
    takes_a_turn(first_run, "first", "trusted1")
    # Codex wrote the answer into the agent's own config; Wardian carried it to the user's.
    assert user_trust(first_run) == "trusted"

    first_run.spawn("second")
    first_run.wait("second", "idle", "ready")

    assert wardian_cli.never_asked(first_run, "second")
    takes_a_turn(first_run, "second", "trusted2")


def test_a_refused_trust_is_not_kept_and_the_next_agent_asks_again(first_run: Wardian) -> None:
    first = first_run.spawn("first")
    asks_to_trust(first_run, "first")

    first_run("send", "--approval", "reject", "--to", "first", "--timeout", "30s")

    # Codex runs on, in its Agent command center instead of the workspace: the agent is back
    # to `starting`, the status it had when asked, and never ready there.
    left = first_run.show("first")
    assert left["status"] == "starting", left
    assert (left["status_evidence"]["event"], left["status_evidence"]["answer"]) == ("approval_resolved", "rejected")
    assert not first_run.cli.server.model_requests()
    assert user_trust(first_run) is None
    agent_config = tomllib.loads((first_run.codex_home(first["uuid"]) / "config.toml").read_text())
    assert str(first_run.workspace) not in agent_config.get("projects", {}), "Codex kept a refusal"

    first_run.spawn("second")
    asks_to_trust(first_run, "second")


def test_a_worktree_asks_until_its_repository_is_trusted_and_then_never(first_run: Wardian) -> None:
    """A worktree Wardian made (under its home) is trusted exactly when its repository is: one of
    a repository never trusted asks; answered, the repository is trusted and its next worktree
    does not ask."""
    wardian_cli.first_commit(first_run.workspace)
    made = first_run.spawn("wt1", "--worktree")
    asks_to_trust(first_run, "wt1")
    assert Path(made["worktree_folder"]).is_relative_to(first_run.home)

    first_run("send", "--approval", "accept", "--to", "wt1", "--timeout", "30s")
    first_run.wait("wt1", "idle", "ready")
    assert user_trust(first_run) == "trusted", "the answer trusts the repository the worktree was made from"

    second = first_run.spawn("wt2", "--worktree")
    first_run.wait("wt2", "idle", "ready")
    assert wardian_cli.never_asked(first_run, "wt2")
    takes_a_turn(first_run, "wt2", "worktree2")
    assert second["worktree_folder"] != made["worktree_folder"]


# -- headless: the argv this provider builds, run as the host will run it, read through replay --


def headless_run(wardian: Wardian, prompt: str, session: str | None = None) -> tuple[list[dict], Path]:
    ctx = SpawnContext(
        agent_uuid="5f0c7f7e-0000-4000-8000-00000000aaaa",
        agent_name="hx",
        class_name="Coder",
        provider="codex",
        workspace=wardian.workspace,
        wardian_home=wardian.home,
        agent_dir=wardian.home / "agents" / "5f0c7f7e-0000-4000-8000-00000000aaaa",
        mode="headless",
        session_mode="resume" if session else "fresh",
        provider_session_id=session,
        prompt=prompt,
        # What the host hands a resume launch: the provider's own answer.
        resume_args=plugin.resume_args(session_id=session) if session else [],
        launch=LaunchConfig(),
    )
    env = {**os.environ, **plugin.prepare_home(ctx).env}
    plan = plugin.build_argv(ctx)
    argv = [str(wardian.cli.executable), *plan.argv[1:]]
    completed = subprocess.run(
        argv,
        cwd=plan.cwd,
        env={**env, **plan.env},
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    output = wardian.home / f"headless-{len(list(wardian.home.glob('headless-*')))}.jsonl"
    output.write_text(completed.stdout)
    replayed = subprocess.run(
        [WARDIAN, "providers", "replay", "codex", str(output), "--source", "headless"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert replayed.returncode == 0, replayed.stderr
    return [json.loads(line) for line in replayed.stdout.splitlines()], output


def statuses(timeline: list[dict]) -> list[tuple[str, str]]:
    return [(entry["to"], entry["event"]) for entry in timeline if entry["type"] == "status" and entry["event"]]


def started_thread(timeline: list[dict]) -> str:
    return next(
        e["event"]["session_id"] for e in timeline if e["type"] == "event" and e["event"]["kind"] == "session_started"
    )


def test_headless_turn_resume_and_api_error(wardian: Wardian) -> None:
    first, _ = headless_run(wardian, "hello ECHO:h1")
    assert statuses(first) == [("processing", "turn_started"), ("idle", "turn_completed")]
    thread = started_thread(first)

    resumed, _ = headless_run(wardian, "again ECHO:h2", session=thread)
    assert statuses(resumed) == [("processing", "turn_started"), ("idle", "turn_completed")]
    assert started_thread(resumed) == thread
    body = turn_request(wardian.cli.server, "ECHO:h2").body_text()
    assert "MOCK-REPLY h1" in body

    failed, _ = headless_run(wardian, "fail MOCK_HTTP_ERROR:400")
    assert statuses(failed) == [("processing", "turn_started"), ("error", "error")]
    errors = [e["event"] for e in failed if e["type"] == "event" and e["event"]["kind"] == "error"]
    assert errors[0]["message"] == "mock error 400 requested"


# -- headless through the host: `wardian agent run` --


def test_an_api_error_is_reported_as_error_then_agent_run_turns_resumes_and_reports_an_api_error(
    wardian: Wardian,
) -> None:
    """One agent (each Codex start costs seconds of CPU): an API error its TUI reports, a turn
    after it, then paused for `wardian agent run` (one Codex process per thread)."""
    wardian.spawn("cx")
    wardian.wait("cx", "idle", "ready")
    wardian("send", "fail MOCK_HTTP_ERROR:400", "--to", "cx")
    errored = wardian.wait("cx", "error", "error")
    assert "mock error 400 requested" in errored["status_evidence"]["message"]
    # The agent is still there to take the next turn.
    again = wardian("send", "retry ECHO:r1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")
    assert again["agent"]["status_evidence"]["event"] == "turn_completed"

    # `wardian agent run`: a fresh headless turn, a resumed one, then an API error.
    wardian("agent", "pause", "cx")  # one Codex process per thread
    wardian("agent", "wait", "cx", "--until", "off", "--timeout", "30s")

    first = wardian.run_record(wardian.run("cx", "hello ECHO:h1"))

    assert (first["status"], first["exit_code"], first["timed_out"]) == ("idle", 0, False), first
    assert first["session_mode"] == "fresh"
    assert (first["timeline"][-1]["to"], first["timeline"][-1]["event"]) == ("idle", "turn_completed"), first
    completed = [e for e in first["events"] if e["kind"] == "turn_completed"]
    assert completed and completed[-1]["evidence"]["source"] == "headless"
    # turn.completed has no text: the parser carries the turn's last agent_message in its message.
    assert completed[-1]["message"] == "MOCK-REPLY h1", completed
    assert "hello ECHO:h1" in turn_request(wardian.cli.server, "ECHO:h1").body_text()
    thread = first["session_id"]
    assert thread and wardian.show("cx")["provider_session_id"] == thread

    again = wardian.run_record(wardian.run("cx", "again ECHO:h2", "--resume"))

    assert (again["status"], again["session_mode"], again["session_id"]) == ("idle", "resume", thread), again
    assert (again["timeline"][-1]["to"], again["timeline"][-1]["event"]) == ("idle", "turn_completed"), again
    body = turn_request(wardian.cli.server, "ECHO:h2").body_text()
    assert "ECHO:h1" in body and "MOCK-REPLY h1" in body, "the resumed thread lost its earlier turn"

    failed = wardian.run("cx", "fail MOCK_HTTP_ERROR:400")

    assert failed.returncode == 1 and failed.stdout == "", failed
    error = json.loads(failed.stderr)["error"]
    assert error["code"] == "request_failed", error
    run = error["details"]
    assert (run["status"], run["exit_code"]) == ("error", 1), run
    assert run["timeline"][-1] == {"from": "processing", "to": "error", "event": "error", "rule": "type=error"}, run[
        "timeline"
    ]
    assert any(e["kind"] == "error" and e["evidence"]["source"] == "headless" for e in run["events"]), run
    assert "mock error 400 requested" in json.dumps(run["events"]) + run["stderr_tail"]


def tool_output(server, command: str) -> str:
    """What Codex handed back to the model for the shell call running `command` (after `Output:`)."""
    calls: dict[str, str] = {}
    for request in server.requests:
        try:
            items = json.loads(request.body_text()).get("input", [])
        except ValueError:
            continue
        for item in items:
            if item.get("type") == "function_call" and command in item.get("arguments", ""):
                calls[item["call_id"]] = ""
            if item.get("type") == "function_call_output" and item.get("call_id") in calls:
                return str(item["output"]).split("Output:\n", 1)[-1]
    raise AssertionError(f"no tool result for {command!r}")


def test_usage_is_what_the_model_server_reported_and_a_host_restart_counts_no_turn_twice(wardian: Wardian) -> None:
    from budget_checks import assert_held_until_raised, cut_by_a_hard_budget
    from model_server.usage import RATE_LIMITS, REPORTED
    from usage_checks import figures, one_call, times, usage_after

    def usage() -> dict[str, Any]:
        return wardian("agent", "show", "cu", "--fields", "usage")["agent"]["usage"]

    def session_calls(server) -> int:
        """The thread's own calls: a title request (0.169.0) is no part of the rollout."""
        return sum(1 for request in server.model_requests() if not asks_for_a_title(request))

    # The Responses wire counts the cached input inside the input and the reasoning inside the
    # output; it has no cache writes, which Codex states as 0.
    per_call = one_call(cache_write=0)
    wardian.spawn("cu")
    wardian.wait("cu", "idle", "ready")
    wardian("send", "hello ECHO:used1", "--to", "cu", "--wait-until", "idle", "--timeout", "60s")
    calls = session_calls(wardian.cli.server)
    first = usage_after(usage, calls)

    assert first["turns"] == calls >= 1
    assert figures(first) == times(calls, per_call)
    assert first["cost_usd"] is None  # Codex states no cost
    context = first["context"]
    assert context["used"] == REPORTED.fresh_input + REPORTED.cache_read + REPORTED.output
    assert context["window"] and context["fill"] == round(context["used"] / context["window"], 4)
    assert first["model"] == "mock-model"
    # The windows the backend's headers gave, as Codex wrote them in its token_count.
    assert first["rate_limits"] == [
        {
            "name": window.name,
            "used_percent": window.used_percent,
            "window_minutes": window.window_minutes,
            "resets_at": datetime.fromtimestamp(window.resets_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        for window in RATE_LIMITS
    ]

    # A host restart (Codex runs on in the terminal server) follows the rollout from its start
    # again: the same calls, not twice as many.
    wardian("host", "restart")
    assert usage_after(usage, calls) == first
    wardian("send", "again ECHO:used2", "--to", "cu", "--wait-until", "idle", "--timeout", "60s")
    calls = session_calls(wardian.cli.server)
    second = usage_after(usage, calls)

    assert second["turns"] == calls
    assert figures(second) == times(calls, per_call)

    # A resumed thread (a new Codex process) goes on counting: each new call is a new turn.
    wardian("agent", "pause", "cu")
    wardian("agent", "resume", "cu")
    wardian("agent", "wait", "cu", "--until", "idle", "--timeout", "60s")
    wardian("send", "resumed ECHO:used3", "--to", "cu", "--wait-until", "idle", "--timeout", "60s")
    calls = session_calls(wardian.cli.server)
    assert usage_after(usage, calls)["turns"] == calls

    # A hard budget the next turn's first call passes: Esc interrupts that turn at once (the
    # rollout's `turn_aborted`), the agent is held until raised.
    cut = cut_by_a_hard_budget(wardian, "cu", lambda: session_calls(wardian.cli.server))
    evidence = cut["status_evidence"]
    assert (cut["status"], evidence["event"], evidence["message"]) == ("idle", "turn_completed", "interrupted"), cut
    assert evidence["rule"] == "event_msg/turn_aborted", evidence
    assert_held_until_raised(wardian, "cu")


def test_a_turn_and_an_approval_outlive_a_host_restart_and_a_crash_and_kill_leaves_no_codex_process(
    wardian: Wardian,
) -> None:
    """One Codex all along: a turn across a host restart, an approval across a restart and a crash,
    then `agent kill` through the third host leaves no process of it."""
    from host_restarts import crash_host, recorded_file_positions, status_changes, status_history

    uuid = wardian.spawn("cx")["uuid"]
    pid = wardian.wait("cx", "idle", "ready")["pid"]

    # Mid-turn: the model holds its answer until the new host runs.
    wardian("send", "slow MOCK_HOLD:turn ECHO:mid1", "--to", "cx")
    wardian.cli.server.wait_for(lambda request: b"MOCK_HOLD:turn" in request.body, timeout=60)
    wardian("agent", "wait", "cx", "--until", "processing", "--timeout", "30s")
    wardian("host", "restart")
    assert wardian.show("cx")["status"] == "processing"  # kept, not headless and not yet idle
    wardian.cli.server.release("turn")
    done = wardian.wait("cx", "idle", "turn_completed")["status_evidence"]
    assert (done["event"], done["source"], done["rule"]) in ADOPTED_TURN_ENDS
    wardian.output_shows("cx", "MOCK-REPLY mid1")
    # The turn started and ended once each, across both hosts.
    ended_once = [("processing", "turn_started"), ("idle", "turn_completed")]
    assert status_changes(wardian.home, uuid)[-2:] == ended_once, status_history(wardian.home, uuid)

    # An approval: its dialog outlives a restart and a crash of the host, and is answered after.
    wardian("send", "run MOCK_ESCALATE MOCK_TOOL:touch approved.txt ECHO:a1", "--to", "cx")
    asked = wardian.wait("cx", "action_required", "approval_requested")
    wardian("host", "restart")
    assert wardian.show("cx") == asked
    crash_host(wardian.home)
    wardian("host", "start")
    assert wardian.show("cx") == asked
    assert not (wardian.workspace / "approved.txt").exists()
    answer = wardian("send", "--approval", "accept", "--to", "cx", "--timeout", "30s")
    assert answer["left_action_required"] is True, answer
    wardian.wait("cx", "idle", "turn_completed")
    assert (wardian.workspace / "approved.txt").exists()
    assert wardian.show("cx")["pid"] == pid  # the same Codex all along
    changes, history = status_changes(wardian.home, uuid), status_history(wardian.home, uuid)
    assert changes.count(("action_required", "approval_requested")) == 1, history
    # Answered on the third host, maybe before its parser's settle (it is left all the same). The
    # box is read gone on a look at the screen, so on a loaded machine the Stop hook's turn end
    # can be read first and end the dialog itself (seen once in CI).
    left = changes[changes.index(("action_required", "approval_requested")) + 1]
    assert left in (("processing", "approval_resolved"), ("idle", "turn_completed")), history
    # Each turn ended once, though its hook log and rollout are read apart (one is read late).
    assert changes.count(("idle", "turn_completed")) == 2, history
    # The thread holds each prompt once: no adopting host typed one again.
    items = json.loads(turn_request(wardian.cli.server, "ECHO:a1").body_text())["input"]
    users = [json.dumps(item) for item in items if isinstance(item, dict) and item.get("role") == "user"]
    assert [sum(token in user for user in users) for token in ("ECHO:mid1", "ECHO:a1")] == [1, 1], users
    # The hook log's last Stop left its parser at rest: a next host would replay none of it.
    log_file = wardian.home / "agents" / uuid / "codex" / "hooks.jsonl"
    hooks_read = recorded_file_positions(wardian.home, uuid, pid)[str(log_file)]
    assert 0 < hooks_read["start"] == hooks_read["read"], hooks_read

    # Kill: no process of the agent is left (its exit reaped by the terminal server).
    assert process_tree.processes_by_session({uuid}).get(uuid)
    wardian("agent", "kill", "cx")
    killed = wardian.show("cx")
    assert killed["status"] == "off" and killed["status_evidence"]["source"] == "host"
    assert "kill" in json.dumps(killed["status_evidence"]), killed["status_evidence"]
    polled_until(lambda: not process_tree.processes_by_session({uuid}).get(uuid), "no Codex process after the kill", 10)
    codex_home = str(wardian.codex_home(uuid))
    for process in psutil.process_iter(["environ"]):
        environ = process.info.get("environ") or {}
        assert environ.get("CODEX_HOME") != codex_home, f"process {process.pid} still runs with the agent's home"
