"""Workflow runs with agent nodes, through the real `wardian` and host, against the real Claude
Code and Codex CLIs and the loopback model server.

Both CLIs share one model server, one user home (its `.claude` and `.codex` pointed at the
server) and one WARDIAN_HOME, so one host runs both providers. Each workflow is two nodes on
two providers, the second's prompt interpolating the first's output; across the tests every
run mode is exercised: `ephemeral` (a role mapped to a provider), `inherit_fresh` (a role
mapped to a live agent: its session and home stay untouched) and `inherit_resume` (a role
mapped to a paused agent: its session is continued; refused while the agent is live).
"""

from __future__ import annotations

import itertools
import json
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from model_server import ModelServer
from model_server.usage import REPORTED
from real_cli_fixtures import (
    PinnedCli,
    configure_claude,
    configure_codex,
    isolated_environment,
    missing_install_message,
    pinned_clis,
)
from usage_checks import usage_after
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli

WAIT = "60s"
# The run waits for two CLI turns in a row; the command gets its own margin on top.
RUN_WAIT = "150s"
PAIRS = [(claude, codex) for claude in pinned_clis("claude") for codex in pinned_clis("codex")]


@dataclass
class Pair:
    """`wardian` with both real CLIs installed for one host, and the model server they call."""

    wardian: WardianCli
    server: ModelServer
    home: Path  # WARDIAN_HOME
    user_home: Path
    workspace: Path
    pins: tuple[PinnedCli, PinnedCli]

    def workflow(self, workflow_id: str, roles: dict[str, Any], nodes: list[dict[str, Any]], **fields: Any) -> None:
        """Write `<home>/workflows/<id>.json`: `nodes` chained in the order given."""
        edges = [{"from": a["id"], "to": b["id"]} for a, b in itertools.pairwise(nodes)]
        folder = self.home / "workflows"
        folder.mkdir(parents=True, exist_ok=True)
        document = {"id": workflow_id, "roles": roles, "nodes": nodes, "edges": edges} | fields
        (folder / f"{workflow_id}.json").write_text(json.dumps(document, indent=2))

    def run(self, workflow_id: str, *inputs: str) -> dict[str, Any]:
        """`workflow run --wait`: the run once it ended, as the command returns it."""
        options = [option for value in inputs for option in ("--input", value)]
        args = ("workflow", "run", workflow_id, "--workspace", str(self.workspace), *options)
        return self.wardian(*args, "--wait", "--timeout", RUN_WAIT, timeout=200)["run"]

    def show(self, workflow_id: str, run_id: str) -> dict[str, Any]:
        return self.wardian("workflow", "show", workflow_id, "--run", run_id)["run"]

    def spawn_idle(self, name: str, provider: str) -> dict[str, Any]:
        args = ["--provider", provider, "--class", "Coder", "--name", name, "--workspace", str(self.workspace)]
        agent = self.wardian("agent", "spawn", *args)["agent"]
        self.wardian.wait(name, "idle", "ready")
        return agent

    def turn(self, name: str, text: str) -> None:
        sent = self.wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", WAIT)
        assert sent["agent"]["status_evidence"]["event"] == "turn_completed", sent

    def recorded_usage(self, name: str) -> dict[str, Any]:
        """The agent's usage once a turn of it is stored: the host read it from the session's file.

        Awaited: the file is written a moment after the turn's end the host saw. Claude makes its
        transcript only as the first turn ends and writes it from a queue drained every 100 ms
        (2.1.197; 2.1.330 queues alike), so its Stop hook can come first: 192 ms before the file
        was made, on a loaded machine. No event tells when; the host's usage read from the file does.
        """
        return usage_after(lambda: self.wardian("agent", "show", name, "--fields", "usage")["agent"]["usage"], 1)

    def assert_both_pinned_clis_called_only_the_model_server(self) -> None:
        """Each pinned CLI (its version in the User-Agent) called the model server, and nothing it
        does not serve; the namespace has nothing but loopback."""
        assert [name for _, name in socket.if_nameindex()] == ["lo"], "not in a loopback-only namespace"
        agents = {
            value
            for request in self.server.model_requests()
            for name, value in request.headers.items()
            if name.lower() == "user-agent"
        }
        for pin in self.pins:
            assert any(pin.version in agent for agent in agents), f"no request from {pin.name} {pin.version}: {agents}"
        unrouted = [f"{r.method} {r.path}" for r in self.server.requests if r.reply_status == 404]
        assert not unrouted, f"calls to endpoints the model server does not speak: {unrouted}"

    def model_request_with(self, text: str) -> str:
        """The body of the newest model request carrying `text`."""
        bodies = [request.body_text() for request in self.server.model_requests()]
        found = [body for body in bodies if text in body]
        assert found, f"no model request carried {text!r}"
        return found[-1]


def _pin_ids(pair: tuple[PinnedCli, PinnedCli]) -> str:
    return "+".join(f"{pin.name}-{pin.version}" for pin in pair)


@pytest.fixture(params=PAIRS, ids=[_pin_ids(pair) for pair in PAIRS])
def pair(
    request: pytest.FixtureRequest, tmp_path: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Pair]:
    claude, codex = request.param
    for pin in (claude, codex):
        if problem := missing_install_message(pin.name, pin.executable):
            pytest.fail(problem, pytrace=False)
    user_home, workspace = tmp_path / "user", tmp_path / "proj"
    user_home.mkdir()
    workspace.mkdir()
    home = Path(os.environ["WARDIAN_HOME"])
    # The user's own environment, as it reaches the host: both CLIs' homes point at the server.
    env = isolated_environment(user_home)
    env |= configure_claude(user_home, workspace, model_server.base_url)
    env |= configure_codex(user_home, workspace, model_server.base_url)
    env.pop("CODEX_HOME")  # Codex's home is the user's ~/.codex, which the provider projects from
    env |= {
        "WARDIAN_HOME": str(home),
        "WARDIAN_PLUGINS": "claude,codex",
        "WARDIAN_CLAUDE_EXECUTABLE": str(claude.executable),
        "WARDIAN_CODEX_EXECUTABLE": str(codex.executable),
        "PWD": str(workspace),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    try:
        yield Pair(
            WardianCli(home, workspace, None, "claude"), model_server, home, user_home, workspace, (claude, codex)
        )
    finally:
        reap_home(home)


def _agent_node(node_id: str, role: str, prompt: str, run_mode: str = "ephemeral") -> dict[str, Any]:
    return {"id": node_id, "kind": "agent", "role": role, "prompt": prompt, "run_mode": run_mode, "timeout": 90}


def _assert_node(node: dict[str, Any], provider: str, run_mode: str, output: str) -> None:
    assert node["state"] == "completed", node
    assert (node["provider"], node["run_mode"], node["output"]) == (provider, run_mode, output), node
    assert node["provider_session_id"], node


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its content."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


SQLITE_SIDE_FILES = ("-wal", "-shm")


def _assert_left_alone(before: dict[str, bytes], after: dict[str, bytes], *markers: str) -> None:
    """The same files, each as it was or only grown, none holding any of `markers` (the node's run).

    Grown, because the agent's own process may still be closing its turn: Claude 2.1.330 appends
    its stop-hook summary and turn duration to its transcript after the Stop hook said idle.
    A SQLite `-wal` or `-shm` file is rewritten in place whenever its database is checkpointed,
    by the live agent's own process (Codex's `logs_2.sqlite`): only the markers count there."""
    assert after.keys() == before.keys()
    for name, content in after.items():
        assert name.endswith(SQLITE_SIDE_FILES) or content.startswith(before[name]), f"{name} was rewritten"
        for marker in markers:
            assert marker.encode() not in content, f"{name} holds {marker!r} of the node's run"


def test_an_ephemeral_claude_node_feeds_an_ephemeral_codex_node(pair: Pair) -> None:
    roles = {"planner": {"provider": "claude"}, "reviewer": {"provider": "codex"}}
    nodes = [
        _agent_node("first", "planner", "Plan the work. ECHO:{{inputs.token}}"),
        _agent_node("second", "reviewer", "Review this plan: [{{nodes.first.output}}] ECHO:review2"),
    ]
    pair.workflow("plan-review", roles, nodes, inputs={"token": {}})

    run = pair.run("plan-review", "token=plan1")

    assert run["status"] == "completed", run
    first, second = run["nodes"]["first"], run["nodes"]["second"]
    _assert_node(first, "claude", "ephemeral", "MOCK-REPLY plan1")
    _assert_node(second, "codex", "ephemeral", "MOCK-REPLY review2")
    # Codex's prompt carried Claude's reply, interpolated.
    assert "Review this plan: [MOCK-REPLY plan1] ECHO:review2" in pair.model_request_with("ECHO:review2")
    # Each node run its own Wardian session, provider session and provider home, under the run.
    assert first["session_id"] != second["session_id"]
    assert first["provider_session_id"] != second["provider_session_id"]
    for node in (first, second):
        assert node["role_agent"] is None, node
        assert Path(node["provider_home"]).is_relative_to(pair.home), node
    assert first["provider_home"] != second["provider_home"]
    assert pair.show("plan-review", run["run_id"])["nodes"] == run["nodes"]
    # What each node cost, as its CLI reported the model server's figures, and the run's total.
    claude_used, codex_used = first["usage"], second["usage"]
    assert [claude_used[name] for name in ("turns", "input_tokens", "output_tokens", "cache_read_tokens")] == [
        1,
        REPORTED.fresh_input,
        REPORTED.output,
        REPORTED.cache_read,
    ]
    assert claude_used["cache_write_tokens"] == REPORTED.cache_write and claude_used["cost_usd"] > 0  # Claude's own
    assert [codex_used[name] for name in ("turns", "input_tokens", "output_tokens", "reasoning_tokens")] == [
        1,
        REPORTED.fresh_input,
        REPORTED.output,
        REPORTED.reasoning,
    ]
    assert codex_used["cost_usd"] is None  # Codex states none
    assert (run["usage"]["turns"], run["usage"]["input_tokens"]) == (2, 2 * REPORTED.fresh_input)
    pair.assert_both_pinned_clis_called_only_the_model_server()


def _session_files(roots: list[Path], session: str) -> dict[str, bytes]:
    """The files under `roots` named after provider session `session` (Claude's transcript, Codex's rollout)."""
    return {name: digest for root in roots if root.is_dir() for name, digest in _tree(root).items() if session in name}


OTHER = {"claude": "codex", "codex": "claude"}


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_an_inherit_fresh_node_starts_its_own_session_and_leaves_the_agents_alone(pair: Pair, provider: str) -> None:
    # Instructions only Coders get: the node inherits the agent's include roots with its configuration.
    coder = pair.home / "classes" / "Coder"
    coder.mkdir(parents=True)
    (coder / "CLAUDE.md").write_text("Coder rule CLASS-RULE-23.\n")
    (coder / "AGENTS.md").write_text("Coder rule CLASS-RULE-23.\n")
    agent = pair.spawn_idle("coder1", provider)
    pair.turn("coder1", "my own turn ECHO:own1")
    own_usage = pair.recorded_usage("coder1")
    own_session = pair.wardian.show("coder1")["provider_session_id"]
    agent_dir = pair.home / "agents" / agent["uuid"]
    homes = [agent_dir, pair.user_home]
    own_files, agent_tree = _session_files(homes, own_session), _tree(agent_dir)
    assert own_files, f"no file of the agent's session {own_session} (its usage: {own_usage})"
    roles = {"drafter": {"provider": OTHER[provider]}, "coder": {"agent": "coder1"}}
    nodes = [
        _agent_node("first", "drafter", "Draft it. ECHO:draft1"),
        _agent_node("second", "coder", "Refine this draft: [{{nodes.first.output}}] ECHO:fresh2", "inherit_fresh"),
    ]
    pair.workflow("draft-refine", roles, nodes)

    run = pair.run("draft-refine")

    assert run["status"] == "completed", run
    first, second = run["nodes"]["first"], run["nodes"]["second"]
    _assert_node(first, OTHER[provider], "ephemeral", "MOCK-REPLY draft1")
    _assert_node(second, provider, "inherit_fresh", "MOCK-REPLY fresh2")
    assert second["role_agent"] == "coder1", second
    body = pair.model_request_with("ECHO:fresh2")
    assert "Refine this draft: [MOCK-REPLY draft1] ECHO:fresh2" in body
    assert "CLASS-RULE-23" in body, "the agent's include roots did not reach the node"
    assert "ECHO:own1" not in body, "the node ran in the agent's own session"
    # A session of its own, kept in files of its own; the agent's session, files and home as they were.
    node_session = second["provider_session_id"]
    assert node_session != own_session
    assert _session_files([*homes, Path(second["provider_home"])], node_session), "no file of the node's session"
    assert not Path(second["provider_home"]).is_relative_to(agent_dir), second
    assert pair.wardian.show("coder1")["provider_session_id"] == own_session
    markers = ("ECHO:fresh2", "MOCK-REPLY draft1", node_session)
    _assert_left_alone(own_files, _session_files(homes, own_session), *markers)
    _assert_left_alone(agent_tree, _tree(agent_dir), *markers)
    pair.assert_both_pinned_clis_called_only_the_model_server()


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_an_inherit_resume_node_continues_a_paused_agents_session_and_is_refused_while_it_is_live(
    pair: Pair, provider: str
) -> None:
    pair.spawn_idle("coder1", provider)
    pair.turn("coder1", "my own turn ECHO:first1")
    own_session = pair.wardian.show("coder1")["provider_session_id"]
    roles = {"coder": {"agent": "coder1"}, "checker": {"provider": OTHER[provider]}}
    nodes = [
        _agent_node("first", "coder", "Carry on. ECHO:resume2", "inherit_resume"),
        _agent_node("second", "checker", "Check this: [{{nodes.first.output}}] ECHO:check3"),
    ]
    pair.workflow("carry-on", roles, nodes)

    refused = pair.run("carry-on")

    # Two writers on one provider session: refused while the agent runs, and nothing was sent.
    assert refused["status"] == "failed", refused
    first, second = refused["nodes"]["first"], refused["nodes"]["second"]
    assert first["state"] == "failed" and "is live" in first["error"], first
    assert second["state"] == "skipped", second
    assert not any("ECHO:resume2" in request.body_text() for request in pair.server.model_requests())

    pair.wardian("agent", "pause", "coder1")
    pair.wardian("agent", "wait", "coder1", "--until", "off", "--timeout", "30s")
    run = pair.run("carry-on")

    assert run["status"] == "completed", run
    first, second = run["nodes"]["first"], run["nodes"]["second"]
    _assert_node(first, provider, "inherit_resume", "MOCK-REPLY resume2")
    _assert_node(second, OTHER[provider], "ephemeral", "MOCK-REPLY check3")
    assert first["role_agent"] == "coder1", first
    # The agent's own session, resumed: the model saw its earlier turn in the node's request.
    assert first["provider_session_id"] == own_session
    body = pair.model_request_with("ECHO:resume2")
    assert "ECHO:first1" in body and "MOCK-REPLY first1" in body, "the node did not resume the agent's session"
    assert "Check this: [MOCK-REPLY resume2] ECHO:check3" in pair.model_request_with("ECHO:check3")
    assert pair.wardian.show("coder1")["provider_session_id"] == own_session
    pair.assert_both_pinned_clis_called_only_the_model_server()
