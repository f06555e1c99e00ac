"""Claude Code itself, driven through `wardian`, against the loopback model server.

The host is started by `wardian agent spawn` with the environment that points Claude at the
model server (CLAUDE_CONFIG_DIR, ANTHROPIC_BASE_URL, the API key) — the way a user's own
environment reaches their agents. Every status asserted is asserted with the event and the
source that caused it, so a status reached some other way cannot pass.
"""

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from real_cli_fixtures import pin_id, pinned_clis
from wardian_cli import ask_answer, ask_in_background, assert_replied_by_the_agent, output_shows

from wardian_claude import argv as claude_argv
from wardian_core.db.connection import reading
from wardian_core.db.events import list_events
from wardian_core.provider import SpawnContext

pytestmark = pytest.mark.real_cli

WAIT = "60s"
HOOKS = "claude-hooks"


@pytest.fixture
def agent(wardian: Callable, claude_cli: Any, wardian_home: Path) -> Callable[..., dict[str, Any]]:
    """Spawn a Claude agent named `name` in the CLI fixture's workspace and wait until idle."""
    env = {**claude_cli.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude_cli.executable)}
    env.pop("HOME", None)

    def spawn(name: str, workspace: Path | None = None) -> dict[str, Any]:
        wardian(
            "agent",
            "spawn",
            "--provider",
            "claude",
            "--class",
            "Coder",
            "--name",
            name,
            "--workspace",
            str(workspace or claude_cli.workspace),
            env=env,
        ).json()
        waited = wardian("agent", "wait", name, "--until", "idle", "--timeout", WAIT)
        if waited.returncode != 0:
            rows = wardian("agent", "screen", name).json()["screen"]["rows"]
            pytest.fail(f"{name} did not become idle: {waited.stderr}\nscreen:\n" + "\n".join(rows))
        return waited.json()["agent"]

    return spawn


def fields(wardian: Callable, name: str) -> dict[str, Any]:
    return wardian("agent", name, "--fields", "status,status_evidence,provider_session_id").json()["agent"]


def watch_page(wardian: Callable, name: str, since: int | None) -> dict[str, Any]:
    args = ("agent", "watch", name) if since is None else ("agent", "watch", name, "--since", str(since))
    return dict(wardian(*args).json()["watch"])


def cursor_now(wardian: Callable, name: str) -> int:
    """The end of the agent's output so far: events from here on are those of what comes next."""
    page = watch_page(wardian, name, None)
    while page["more"]:
        page = watch_page(wardian, name, page["cursor"])
    return int(page["cursor"])


def transitions(wardian: Callable, name: str, since: int | None = None) -> list[tuple[str, str, str, str]]:
    """(from, to, event, source) of every status change the host kept for the agent (from cursor
    `since` on, when given: a test taking several turns asserts on one turn's changes)."""
    page = watch_page(wardian, name, since)
    events = list(page["events"])
    while page["more"]:
        page = watch_page(wardian, name, page["cursor"])
        events += page["events"]
    return [(e["from"], e["to"], e["evidence"].get("event"), e["evidence"].get("source")) for e in events]


def assert_on_screen(wardian_home: Path, name: str, text: str) -> None:
    """`text` shows in the agent's output within 10 s, spaces ignored: the TUI draws them by moving
    the cursor, and can draw a reply a moment after the Stop hook ended its turn."""
    output_shows(name, text, env={**os.environ, "WARDIAN_HOME": str(wardian_home)})


def assert_evidence(agent: dict[str, Any], status: str, event: str, source: str, rule: str | None = None) -> None:
    evidence = agent["status_evidence"]
    assert (agent["status"], evidence["event"], evidence["source"]) == (status, event, source), agent
    if rule is not None:
        assert evidence["rule"] == rule, agent


def send_and_wait(wardian: Callable, name: str, text: str) -> dict[str, Any]:
    return wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", WAIT).json()["agent"]


# -- one agent, started once, through the checks that need no fresh start of their own --


def spawn_and_send_at_once(wardian: Callable, claude_cli: Any, wardian_home: Path, name: str) -> None:
    """A send right after spawn arrives intact: the host holds the text until Claude takes input."""
    env = {**claude_cli.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude_cli.executable)}
    env.pop("HOME", None)
    spawn = ("agent", "spawn", "--provider", "claude", "--class", "Coder", "--name", name)
    wardian(*spawn, "--workspace", str(claude_cli.workspace), env=env).json()
    text = "first words typed at once ECHO:early7"

    # No wait for idle.
    sent = wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", WAIT).json()

    assert sent["results"][0]["result"] == "delivered"
    assert_evidence(fields(wardian, name), "idle", "turn_completed", HOOKS, "hook Stop")
    bodies = [request.body_text() for request in claude_cli.server.model_requests()]
    assert any(text in body for body in bodies), "the prompt reached the model cut or garbled"
    events = wardian("agent", "watch", name).json()["watch"]["events"]
    submitted = [e["evidence"]["line"] for e in events if e["evidence"].get("event") == "turn_started"]
    assert submitted == [f"UserPromptSubmit {text}"]
    assert_on_screen(wardian_home, name, "MOCK-REPLY early7")


def write_skill_and_instructions(wardian_home: Path) -> None:
    """A skill and instructions in the common include root, there before the agent starts."""
    skill = wardian_home / "common" / ".agents" / "skills" / "zebra-painter"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: zebra-painter\ndescription: Paints zebras ZEBRA-SKILL-42\n---\nPaint stripes.\n"
    )
    (wardian_home / "common" / "CLAUDE.md").write_text("Shared rule COMMON-RULE-17.\n")


def skill_and_instructions_reach_the_model(wardian: Callable, claude_cli: Any, wardian_home: Path, name: str) -> None:
    send_and_wait(wardian, name, "hello ECHO:skill3")

    body = claude_cli.server.model_requests()[-1].body.decode()
    assert "zebra-painter" in body and "ZEBRA-SKILL-42" in body
    assert "COMMON-RULE-17" in body
    assert (wardian_home / "common" / ".claude" / "skills").is_symlink()


def multi_line_message_arrives_as_one_prompt(wardian: Callable, claude_cli: Any, wardian_home: Path, name: str) -> None:
    since = cursor_now(wardian, name)

    send_and_wait(wardian, name, "first line of the task\nsecond line ECHO:multi4")

    assert_evidence(fields(wardian, name), "idle", "turn_completed", HOOKS, "hook Stop")
    assert ("idle", "processing", "turn_started", HOOKS) in transitions(wardian, name, since)
    body = claude_cli.server.model_requests()[-1].body.decode()
    assert "first line of the task\\nsecond line ECHO:multi4" in body
    assert_on_screen(wardian_home, name, "MOCK-REPLY multi4")


def shell_tool_reaches_the_host_as_the_agent(wardian: Callable, claude_cli: Any, wardian_home: Path, name: str) -> None:
    me = wardian("agent", name, "--fields", "uuid").json()["agent"]
    whoami = claude_cli.workspace / "whoami.json"

    # Wardian launches Claude without its sandbox: the tool runs once approved.
    wardian("send", f"MOCK_TOOL:wardian host whoami > {whoami.name} ECHO:w1", "--to", name).json()
    wardian("agent", "wait", name, "--until", "action_required", "--timeout", WAIT).json()
    assert f"Bash: wardian host whoami > {whoami.name}" in fields(wardian, name)["status_evidence"]["line"]
    wardian("send", "--approval", "accept", "--to", name).json()
    wardian("agent", "wait", name, "--until", "idle", "--timeout", WAIT).json()

    # The audit log in state.db has the call its hooks reported, beside the status changes.
    with reading(wardian_home) as conn:
        calls = [e["payload"] for e in list_events(conn, me["uuid"]) if e["kind"] == "tool_call"]
    bash = [(call["tool"], call["rule"], call["source"]) for call in calls if "whoami" in call.get("line", "")]
    assert ("Bash", "hook PreToolUse", HOOKS) in bash and ("Bash", "hook PostToolUse", HOOKS) in bash, calls
    caller = json.loads(whoami.read_text())["caller"]
    tie = "cgroup" if caller["cgroups"]["in_use"] else "ancestry"  # the agent's own cgroup, where there is one
    assert (caller["verification"], caller["tie"]) == ("verified", tie), caller
    assert (caller["agent"]["uuid"], caller["agent"]["name"]) == (me["uuid"], name), caller


def an_ask_is_answered_by_the_agents_wardian_reply(wardian: Callable, wardian_home: Path, name: str) -> None:
    question = "what is six times seven? MOCK_TOOL:echo 42 | wardian reply ASK_REQUEST_ID --status done --stdin"
    asking = ask_in_background(name, question, {"WARDIAN_HOME": str(wardian_home)})

    wardian("agent", "wait", name, "--until", "action_required", "--timeout", WAIT).json()
    assert "wardian reply ask_" in fields(wardian, name)["status_evidence"]["line"]
    wardian("send", "--approval", "accept", "--to", name).json()

    assert_replied_by_the_agent(ask_answer(asking), "42")
    # The reply came from within the turn: it ends before the next check sends.
    wardian("agent", "wait", name, "--until", "idle", "--timeout", WAIT).json()


def approval_accepted_runs_the_tool_and_rejected_does_not(
    wardian: Callable, claude_cli: Any, wardian_home: Path, name: str
) -> None:
    # Nobody named a permission mode: Wardian launched Claude in "default", so tools ask.
    in_force = wardian("agent", name, "--verbose").json()["agent"]["provider_settings"]
    assert in_force == {"permission_mode": "default"}
    approved, rejected = claude_cli.workspace / "approved.txt", claude_cli.workspace / "rejected.txt"
    since = cursor_now(wardian, name)

    wardian("send", f"run MOCK_TOOL:touch {approved.name} ECHO:acc1", "--to", name).json()
    waiting = wardian("agent", "wait", name, "--until", "action_required", "--timeout", WAIT).json()["agent"]
    assert waiting["status"] == "action_required"
    asking = fields(wardian, name)
    assert_evidence(asking, "action_required", "approval_requested", HOOKS, "hook PermissionRequest")
    assert f"Bash: touch {approved.name}" in asking["status_evidence"]["line"]
    assert (asking["status_evidence"]["reason"], asking["status_evidence"]["dialog"]) == ("tool", "tool")
    assert not approved.exists(), "the tool ran before it was approved"

    answer = wardian("send", "--approval", "accept", "--to", name).json()
    assert answer["left_action_required"] is True
    wardian("agent", "wait", name, "--until", "idle", "--timeout", WAIT).json()

    assert_evidence(fields(wardian, name), "idle", "turn_completed", HOOKS, "hook Stop")
    # The dialog's end is its own event (the tool ran after it), not a turn_started.
    assert ("action_required", "processing", "approval_resolved", HOOKS) in transitions(wardian, name, since)
    assert approved.exists()
    assert_on_screen(wardian_home, name, "MOCK-REPLY tool-done acc1")
    since = cursor_now(wardian, name)

    wardian("send", f"run MOCK_TOOL:touch {rejected.name} ECHO:rej2", "--to", name).json()
    # Idle before the send (above), so any action_required now is this dialog's. Not `--next`:
    # `send` answers once the turn started, and the dialog may open before the wait begins.
    wardian("agent", "wait", name, "--until", "action_required", "--timeout", WAIT).json()
    assert_evidence(fields(wardian, name), "action_required", "approval_requested", HOOKS, "hook PermissionRequest")

    answer = wardian("send", "--approval", "reject", "--to", name).json()

    assert answer["left_action_required"] is True
    # A rejection ends the turn without any hook (2.1.197): the screen says so.
    assert_evidence(fields(wardian, name), "idle", "turn_completed", "pty", "turn interrupted after an approval dialog")
    assert ("action_required", "processing", "approval_resolved", "pty") in transitions(wardian, name, since)
    assert not rejected.exists(), "the rejected command ran"


def api_error_in_a_turn_is_an_error(wardian: Callable, name: str) -> None:
    wardian("send", "now MOCK_HTTP_ERROR:400", "--to", name).json()
    wardian("agent", "wait", name, "--until", "error", "--timeout", WAIT)

    failed = fields(wardian, name)
    assert_evidence(failed, "error", "error", HOOKS, "hook StopFailure")
    assert "mock error 400 requested" in failed["status_evidence"]["line"]


def test_one_agent_takes_an_early_send_skills_multi_line_tools_an_ask_and_approvals(
    wardian: Callable, claude_cli: Any, wardian_home: Path
) -> None:
    """Checks that need no fresh Claude of their own, in turn on one (each Claude start costs
    seconds of CPU); each starts from idle. The rejected tool goes last: Claude sends its refusal
    with the next prompt, which the model server would answer as the tool's end."""
    write_skill_and_instructions(wardian_home)
    spawn_and_send_at_once(wardian, claude_cli, wardian_home, "cc")
    skill_and_instructions_reach_the_model(wardian, claude_cli, wardian_home, "cc")
    multi_line_message_arrives_as_one_prompt(wardian, claude_cli, wardian_home, "cc")
    shell_tool_reaches_the_host_as_the_agent(wardian, claude_cli, wardian_home, "cc")
    an_ask_is_answered_by_the_agents_wardian_reply(wardian, wardian_home, "cc")
    approval_accepted_runs_the_tool_and_rejected_does_not(wardian, claude_cli, wardian_home, "cc")
    claude_cli.assert_only_model_server_was_called()


def headless_run(claude_cli: Any, tmp_path: Path, prompt: str, **update: Any) -> Path:
    """Run the argv the provider builds for a headless launch; keep its stdout for replay."""
    agent_dir = tmp_path / "wh" / "agents" / "a"
    agent_dir.mkdir(parents=True, exist_ok=True)
    ctx = SpawnContext(
        **{"class": "Coder"},
        agent_uuid="a",
        agent_name="node",
        provider="claude",
        workspace=claude_cli.workspace,
        wardian_home=tmp_path / "wh",
        agent_dir=agent_dir,
        mode="headless",
        prompt=prompt,
        **update,
    )
    if ctx.session_mode == "resume" and ctx.provider_session_id:
        # As the host does: what resume_args answers is handed to build_argv.
        ctx = ctx.model_copy(update={"resume_args": claude_argv.resume_args(ctx.provider_session_id)})
    plan = claude_argv.launch_plan(ctx)
    completed = claude_cli.run(*plan.argv[1:], timeout=60)
    out = tmp_path / f"headless-{len(list(tmp_path.glob('headless-*')))}.jsonl"
    out.write_text(completed.stdout)
    return out


def replay_statuses(wardian: Callable, path: Path) -> list[dict[str, Any]]:
    lines = wardian("providers", "replay", "claude", str(path), "--source", "headless").lines()
    return [line for line in lines if line["type"] == "status"]


def test_headless_turn_completes_and_an_api_error_is_an_error(
    wardian: Callable, claude_cli: Any, tmp_path: Path
) -> None:
    session = "4b0a4c59-2e51-4f33-9e0e-3a3c1d7e9b10"
    turn = headless_run(claude_cli, tmp_path, "hello ECHO:head1", provider_session_id=session)

    statuses = replay_statuses(wardian, turn)
    assert (statuses[-1]["to"], statuses[-1]["event"], statuses[-1]["evidence"]["source"]) == (
        "idle",
        "turn_completed",
        "headless",
    )
    assert "MOCK-REPLY head1" in statuses[-1]["evidence"]["line"]
    assert json.loads(turn.read_text().splitlines()[0])["session_id"] == session

    resumed = headless_run(claude_cli, tmp_path, "more ECHO:head2", provider_session_id=session, session_mode="resume")
    assert replay_statuses(wardian, resumed)[-1]["event"] == "turn_completed"
    assert "ECHO:head1" in claude_cli.server.model_requests()[-1].body.decode()

    failed = headless_run(claude_cli, tmp_path, "oops MOCK_HTTP_ERROR:400")
    statuses = replay_statuses(wardian, failed)
    assert (statuses[-1]["to"], statuses[-1]["event"], statuses[-1]["evidence"]["rule"]) == (
        "error",
        "error",
        "result is_error",
    )
    claude_cli.assert_only_model_server_was_called()


def test_turn_then_pause_and_resume_continue_the_same_session(
    wardian: Callable, agent: Callable, claude_cli: Any, wardian_home: Path
) -> None:
    ready = agent("cc")
    # Ready is the prompt on screen once Claude's SessionStart hook has fired.
    assert_evidence(fields(wardian, "cc"), "idle", "ready", "pty", "ready prompt after hook SessionStart")
    # The ready prompt as a person sees it: the words apart, as the TUI laid them out.
    rows = wardian("agent", "screen", "cc").json()["screen"]["rows"]
    assert any("? for shortcuts" in row for row in rows), rows
    session_id = fields(wardian, "cc")["provider_session_id"]
    assert session_id and ready["status"] == "idle"

    after = send_and_wait(wardian, "cc", "hello ECHO:first1")

    assert_evidence(fields(wardian, "cc"), "idle", "turn_completed", HOOKS, "hook Stop")
    assert after["status"] == "idle"
    assert ("idle", "processing", "turn_started", HOOKS) in transitions(wardian, "cc")
    assert_on_screen(wardian_home, "cc", "MOCK-REPLY first1")

    paused = wardian("agent", "pause", "cc").json()["agent"]
    assert paused["status"] == "off"
    wardian("agent", "resume", "cc").json()
    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", WAIT).json()
    resumed = fields(wardian, "cc")
    assert resumed["provider_session_id"] == session_id
    # No trust question for Wardian's own --add-dir roots on the resume (2.1.330 asks otherwise).
    assert_evidence(resumed, "idle", "ready", "pty", "ready prompt after hook SessionStart")

    send_and_wait(wardian, "cc", "again ECHO:second2")

    assert_evidence(fields(wardian, "cc"), "idle", "turn_completed", HOOKS, "hook Stop")
    last = claude_cli.server.model_requests()[-1].body.decode()
    assert "ECHO:second2" in last and "ECHO:first1" in last, "the resumed session lost the earlier turn"
    assert_on_screen(wardian_home, "cc", "MOCK-REPLY second2")
    claude_cli.assert_only_model_server_was_called()


# -- one agent's usage across a host restart, its session renewed by clear, kept by resume, run headless --


def a_fresh_launch_gets_a_new_session_id_that_the_next_resume_uses(
    wardian: Callable, claude_cli: Any, first: dict[str, Any]
) -> None:
    """`agent clear` of the agent `first` (its turns: ECHO:used1, ECHO:used2, an API error)."""
    first_session = fields(wardian, "cc")["provider_session_id"]

    cleared = wardian("agent", "clear", "cc").json()["agent"]
    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", WAIT).json()
    fresh_session = fields(wardian, "cc")["provider_session_id"]
    assert cleared["uuid"] == first["uuid"]
    assert fresh_session and fresh_session != first_session

    # Stop is matched by the new session id, so the hook source follows the new session.
    send_and_wait(wardian, "cc", "hello ECHO:new2")
    assert_evidence(fields(wardian, "cc"), "idle", "turn_completed", HOOKS, "hook Stop")
    last = claude_cli.server.model_requests()[-1].body.decode()
    assert "ECHO:used1" not in last and "ECHO:used2" not in last and "MOCK_HTTP_ERROR" not in last

    wardian("agent", "pause", "cc").json()
    wardian("agent", "resume", "cc").json()
    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", WAIT).json()
    assert fields(wardian, "cc")["provider_session_id"] == fresh_session
    send_and_wait(wardian, "cc", "more ECHO:new3")
    last = claude_cli.server.model_requests()[-1].body.decode()
    assert "ECHO:new2" in last and "ECHO:used2" not in last


def agent_run(wardian: Callable, name: str, prompt: str, *flags: str) -> Any:
    return wardian("agent", "run", name, prompt, *flags, "--timeout", "75s", timeout=85)


def last_step(run: dict[str, Any]) -> tuple[str, str]:
    return run["timeline"][-1]["to"], run["timeline"][-1]["event"]


def agent_run_turn_resume_and_api_error(wardian: Callable, claude_cli: Any) -> None:
    """`wardian agent run` (headless through the host) of the agent `cc`, paused first."""
    wardian("agent", "pause", "cc").json()  # one Claude process per session

    first = agent_run(wardian, "cc", "hello ECHO:h1").json()["run"]

    assert (first["status"], first["exit_code"], first["timed_out"]) == ("idle", 0, False), first
    assert first["session_mode"] == "fresh"
    assert last_step(first) == ("idle", "turn_completed"), first["timeline"]
    completed = [e for e in first["events"] if e["kind"] == "turn_completed"]
    assert completed and completed[-1]["evidence"]["source"] == "headless"
    assert "MOCK-REPLY h1" in json.dumps(first["events"])
    assert "ECHO:h1" in claude_cli.server.model_requests()[-1].body.decode()
    session = first["session_id"]
    assert session and fields(wardian, "cc")["provider_session_id"] == session

    again = agent_run(wardian, "cc", "more ECHO:h2", "--resume").json()["run"]

    assert (again["status"], again["session_mode"], again["session_id"]) == ("idle", "resume", session), again
    assert last_step(again) == ("idle", "turn_completed"), again["timeline"]
    last = claude_cli.server.model_requests()[-1].body.decode()
    assert "ECHO:h2" in last and "ECHO:h1" in last, "the resumed session lost the earlier turn"

    failed = agent_run(wardian, "cc", "oops MOCK_HTTP_ERROR:400")

    assert failed.returncode == 1 and failed.stdout == "", failed
    error = json.loads(failed.stderr)["error"]
    assert error["code"] == "request_failed", error
    run = error["details"]
    assert (run["status"], run["exit_code"]) == ("error", 1), run
    assert run["timeline"][-1] == {"from": "processing", "to": "error", "event": "error", "rule": "result is_error"}, (
        run["timeline"]
    )
    assert any(e["kind"] == "error" and e["evidence"]["source"] == "headless" for e in run["events"]), run
    assert "mock error 400 requested" in json.dumps(run["events"]) + run["stderr_tail"]


def usage_is_what_the_model_server_reported_and_a_host_restart_counts_no_turn_twice(
    wardian: Callable, agent: Callable, claude_cli: Any
) -> dict[str, Any]:
    """The agent `cc`, spawned in a folder Claude names with a hash, and its first two turns."""
    from model_server.usage import REPORTED
    from usage_checks import figures, model_calls, one_call, times, usage_after

    def usage() -> dict[str, Any]:
        return dict(wardian("agent", "show", "cc", "--fields", "usage").json()["agent"]["usage"])

    # Anthropic's wire: input without the cache reads and writes; no reasoning count of its own.
    per_call = one_call(cache_write=REPORTED.cache_write, reasoning=None)
    # A folder Claude names with a hash (past 200 characters) and a character it counts twice: the
    # host names the transcript before Claude makes it, as the first turn ends.
    workspace = claude_cli.workspace / ("deep-" * 40 + "\N{ROCKET}")
    workspace.mkdir()  # trusted: below the fixture's trusted workspace
    spawned = agent("cc", workspace)
    send_and_wait(wardian, "cc", "hello ECHO:used1")
    calls = model_calls(claude_cli.server, "/messages")
    first = usage_after(usage, calls)

    assert first["turns"] == calls >= 1
    assert figures(first) | {"reasoning_tokens": None} == times(calls, per_call) | {"reasoning_tokens": None}
    assert first["cost_usd"] is None and first["context"]["window"] is None  # the transcript states neither
    expected_context = REPORTED.fresh_input + REPORTED.cache_read + REPORTED.cache_write
    assert first["context"]["used"] == expected_context
    assert first["model"]

    # A host restart (Claude runs on in the terminal server) reads the transcript from its start
    # again: the same turns, not twice as many. The new host is told Claude's executable, as the
    # first was: the checks after this one start Claude again.
    env = {**claude_cli.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude_cli.executable)}
    env.pop("HOME", None)
    assert wardian("host", "restart", env=env).returncode == 0
    assert usage_after(usage, calls) == first
    send_and_wait(wardian, "cc", "again ECHO:used2")
    calls = model_calls(claude_cli.server, "/messages")
    second = usage_after(usage, calls)

    assert second["turns"] == calls
    assert figures(second)["input_tokens"] == REPORTED.fresh_input * calls
    assert figures(second)["output_tokens"] == REPORTED.output * calls
    return spawned


def test_usage_outlives_a_host_restart_then_an_api_error_clear_resume_and_agent_run_renew_or_keep_the_session(
    wardian: Callable, agent: Callable, claude_cli: Any
) -> None:
    """One agent through the checks that need no fresh Claude or whose restarts of it renew its
    session or run it headless, in turn (each Claude start costs seconds of CPU): usage first,
    which counts every model call of the server as the agent's; the API error, which leaves the
    agent in error, right before the clear that starts Claude afresh."""
    first = usage_is_what_the_model_server_reported_and_a_host_restart_counts_no_turn_twice(wardian, agent, claude_cli)
    api_error_in_a_turn_is_an_error(wardian, "cc")
    a_fresh_launch_gets_a_new_session_id_that_the_next_resume_uses(wardian, claude_cli, first)
    agent_run_turn_resume_and_api_error(wardian, claude_cli)
    claude_cli.assert_only_model_server_was_called()


# The current pin only: what adoption proves does not differ by Claude's version, and each run costs.
CURRENT = [pin for pin in pinned_clis("claude") if pin.current]


@pytest.mark.parametrize("claude_cli", CURRENT, ids=[pin_id(pin) for pin in CURRENT], indirect=True)
def test_a_turn_outlives_a_host_restart_mid_turn(
    wardian: Callable, agent: Callable, claude_cli: Any, wardian_home: Path
) -> None:
    from host_restarts import recorded_file_positions, status_changes

    agent("cc")
    before = wardian("agent", "cc", "--fields", "uuid,pid,provider_session_id").json()["agent"]
    env = {**claude_cli.env}
    env.pop("HOME", None)

    # The model holds its answer until the new host runs.
    wardian("send", "slow MOCK_HOLD:turn ECHO:mid1", "--to", "cc").json()
    claude_cli.server.wait_for(lambda request: b"MOCK_HOLD:turn" in request.body, timeout=60)
    wardian("agent", "wait", "cc", "--until", "processing", "--timeout", WAIT).json()
    assert wardian("host", "restart", env=env).returncode == 0
    assert fields(wardian, "cc")["status"] == "processing"  # kept, not headless and not yet idle
    claude_cli.server.release("turn")

    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", WAIT).json()
    assert_evidence(fields(wardian, "cc"), "idle", "turn_completed", HOOKS, "hook Stop")
    assert_on_screen(wardian_home, "cc", "MOCK-REPLY mid1")
    # The turn started and ended once each across both hosts, in the same Claude and session.
    changes = status_changes(wardian_home, before["uuid"])
    assert changes[-2:] == [("processing", "turn_started"), ("idle", "turn_completed")], changes
    assert changes.count(("idle", "turn_completed")) == 1, changes
    assert wardian("agent", "cc", "--fields", "uuid,pid,provider_session_id").json()["agent"] == before

    # The new host takes the next turn, in the same session.
    send_and_wait(wardian, "cc", "again ECHO:after2")
    assert_evidence(fields(wardian, "cc"), "idle", "turn_completed", HOOKS, "hook Stop")
    last = claude_cli.server.model_requests()[-1].body.decode()
    assert "ECHO:after2" in last and "MOCK-REPLY mid1" in last, "the session lost the turn that spanned the restart"
    assert status_changes(wardian_home, before["uuid"]).count(("idle", "turn_completed")) == 2
    # The hook log's Stop left the parser at rest: a next host would replay none of the log.
    log_file = wardian_home / "agents" / before["uuid"] / "claude" / "hooks.jsonl"
    positions = recorded_file_positions(wardian_home, before["uuid"], before["pid"])
    hooks_read = positions[str(log_file)]
    assert 0 < hooks_read["start"] == hooks_read["read"], hooks_read
    # Its transcript's parser holds no usage limit: every line a rest, none replayed either.
    transcripts = [position for path, position in positions.items() if "/projects/" in path]
    assert transcripts and all(0 < each["start"] == each["read"] for each in transcripts), positions
    claude_cli.assert_only_model_server_was_called()


# The current pin only: the hold is Wardian's, and the figures it counts are the usage test's.
@pytest.mark.parametrize("claude_cli", CURRENT, ids=[pin_id(pin) for pin in CURRENT], indirect=True)
def test_a_budget_holds_the_agent_after_the_turn_that_passes_it_until_raised(
    wardian: Callable, agent: Callable, claude_cli: Any, wardian_home: Path
) -> None:
    from usage_checks import model_calls, usage_after

    # 1310 tokens a model call (model_server.usage: fresh input, cache writes, output; cache reads
    # not counted): the turn that passes 2000 is the first or the second.
    (wardian_home / "settings.toml").write_text("[budgets.agents.cb]\ntokens = 2000\n")
    agent("cb")

    def budget() -> dict[str, Any]:
        return dict(wardian("agent", "budget", "cb").json())

    for turn in range(1, 3):
        send_and_wait(wardian, "cb", f"spend ECHO:spent{turn}")
        calls = model_calls(claude_cli.server, "/messages")
        usage_after(lambda: wardian("agent", "show", "cb", "--fields", "usage").json()["agent"]["usage"], calls)
        if budget()["used"]["tokens"] >= 2000:
            break
    shown = budget()
    assert (
        shown["held"] is not None
        and shown["reached"] == ["tokens"]
        and shown["sources"] == {"tokens": "agent_settings"}
    )

    refused = wardian("send", "after ECHO:refused", "--to", "cb")
    error = json.loads(refused.stderr)["error"]
    assert refused.returncode == 1 and error["code"] == "budget_reached"
    assert "wardian agent budget cb --raise tokens=+" in error["hint"]
    assert not any("ECHO:refused" in request.body.decode() for request in claude_cli.server.model_requests())

    raised = wardian("agent", "budget", "cb", "--raise", "tokens=+20000").json()
    assert raised["held"] is None and raised["left"]["tokens"] > 0
    send_and_wait(wardian, "cb", "raised ECHO:delivered")
    assert "ECHO:delivered" in claude_cli.server.model_requests()[-1].body.decode()
    claude_cli.assert_only_model_server_was_called()
