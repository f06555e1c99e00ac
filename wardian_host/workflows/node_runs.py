"""What one workflow node does: a shell command, or a provider run headless with the node's prompt.

Every node run has its own session id (its WARDIAN_SESSION_ID) and directory under the
run; an agent node's provider home is that directory, except for `inherit_resume`, whose
provider session lives in the role agent's home. A node's process group is recorded in
its `node_started` event, so a host that died mid-run is followed by one that ends it.
"""

import asyncio
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from wardian_core.errors import WardianError
from wardian_core.provider_models import HEADLESS_SOURCE, LaunchConfig, LaunchPlan, SpawnContext
from wardian_core.usage_sums import reported_turns
from wardian_core.workflows.model import AgentNode, ShellNode, Workflow
from wardian_core.workflows.templates import TemplateError, render
from wardian_host.agents.agent_env import agent_environment
from wardian_host.agents.headless import HeadlessRun, check_capability, end_group
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.spawn_context import build_context
from wardian_host.agents.status_waits import wait_for_change
from wardian_host.providers.source_parser import SourceParser
from wardian_host.workflows.remote_roles import LINK_ALLOWANCE_SECONDS, RemotePlayer, ask_remote, remote_player
from wardian_host.workflows.roles import Player, resolve_role

OUTPUT_LIMIT_BYTES = 1024 * 1024
STDERR_TAIL_BYTES = 4000


class NodeFailed(Exception):
    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.details = details or {}


@dataclass
class NodeRun:
    run_id: str
    session_id: str
    directory: Path
    workspace: Path
    inputs: dict[str, str]
    outputs: dict[str, Any]
    record: Callable[[str, dict[str, Any]], None]  # (event kind, payload) for this node
    started: dict[str, Any] = field(default_factory=dict)  # node_started's payload, before the pid
    worktree: dict[str, Any] | None = None  # the node's own worktree (`worktree: true`), once made
    on_started: Callable[[int], None] | None = None  # told the node's process, once it runs

    def mark_started(self, pid: int) -> None:
        """node_started, with what identifies the process group to end after a host crash."""
        try:
            created = psutil.Process(pid).create_time()
        except psutil.Error:
            created = None
        self.record("node_started", self.started | {"session_id": self.session_id, "pid": pid, "created": created})
        if self.on_started is not None:
            self.on_started(pid)


def _rendered(template: str, run: NodeRun, quote: Callable[[str], str] = str) -> str:
    try:
        return render(template, run.inputs, run.outputs, quote)
    except TemplateError as error:
        raise NodeFailed(str(error)) from None


async def run_shell(node: ShellNode, run: NodeRun, home: Path, base_env: dict[str, str]) -> dict[str, Any]:
    command = _rendered(node.command, run, shlex.quote)
    cwd = Path(node.cwd) if node.cwd else run.workspace
    run.started = {"kind": "shell", "command": command, "cwd": str(cwd)}
    process = await asyncio.create_subprocess_exec(
        "sh",
        "-c",
        command,
        cwd=cwd,
        env=agent_environment(base_env, home, run.session_id),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    run.mark_started(process.pid)
    try:
        stdout, stderr = await asyncio.wait_for(_read_both(process), node.timeout)
    except TimeoutError:
        await end_group(process)
        raise NodeFailed(f"timed out after {node.timeout:g} s", {"timeout_seconds": node.timeout}) from None
    except asyncio.CancelledError:
        await end_group(process)
        raise
    exit_code = await process.wait()
    tail = stderr[-STDERR_TAIL_BYTES:].decode(errors="replace")
    if exit_code != 0:
        raise NodeFailed(f"exited with {exit_code}", {"exit_code": exit_code, "stderr_tail": tail})
    return {"output": stdout.decode(errors="replace").rstrip("\n"), "exit_code": 0}


async def _read_both(process: asyncio.subprocess.Process) -> tuple[bytes, bytes]:
    assert process.stdout is not None and process.stderr is not None
    return await asyncio.gather(_bounded(process.stdout), process.stderr.read())


async def _bounded(stream: asyncio.StreamReader) -> bytes:
    """Up to OUTPUT_LIMIT_BYTES of the stream; the rest is read and dropped."""
    kept = bytearray()
    while chunk := await stream.read(65536):
        kept += chunk[: max(0, OUTPUT_LIMIT_BYTES - len(kept))]
    return bytes(kept)


@dataclass(frozen=True)
class AgentNodeParts:
    lifecycle: AgentLifecycle
    registry: AgentRegistry
    home: Path


async def run_agent(node: AgentNode, workflow: Workflow, run: NodeRun, parts: AgentNodeParts) -> dict[str, Any]:
    far = remote_player(workflow.roles[node.role])
    if far is not None:
        return await _run_remote(node, f"{workflow.id}/{node.id}", run, parts.home, far)
    try:
        player = resolve_role(node.role, workflow.roles[node.role], parts.registry)
        check_capability(player.provider, parts.lifecycle.capabilities(player.provider))
        refused = parts.registry.prompt_refusal(player.agent) if player.agent is not None else None
        if refused is not None:
            raise refused
    except WardianError as error:
        raise NodeFailed(error.message, {"code": error.code}) from None
    prompt = _rendered(node.prompt, run)
    ctx, plan, env = await _launch(node, player, run, parts, prompt)
    run.started = {
        "kind": "agent",
        "role": node.role,
        "provider": player.provider,
        "run_mode": node.run_mode,
        "role_agent": player.agent.name if player.agent else None,
        "provider_home": str(ctx.agent_dir),
        "workspace": str(ctx.workspace),
    } | ({"worktree": run.worktree} if run.worktree else {})
    headless = HeadlessRun(SourceParser(parts.lifecycle.plugins, player.provider, HEADLESS_SOURCE))
    result = await headless.run(ctx, plan, env, node.timeout, run.mark_started)
    session = result["session_id"] or ctx.provider_session_id
    if node.run_mode == "inherit_resume" and player.agent is not None and session:
        parts.lifecycle.adopt_session(player.agent, session)
    usage = reported_turns(result["events"])
    if result["status"] != "idle" or result["exit_code"] != 0:
        details = {"provider_session_id": session, "exit_code": result["exit_code"], "usage": usage}
        raise NodeFailed(_failure(result), details)
    reply = final_reply(result["events"])
    output = reply if node.output_schema is None else json_output(reply, node.output_schema)
    return {"output": output, "provider_session_id": session, "exit_code": 0, "usage": usage}


async def _run_remote(node: AgentNode, asker: str, run: NodeRun, home: Path, player: RemotePlayer) -> dict[str, Any]:
    """The prompt asked of the agent on another machine; its reply is the output."""
    prompt = _rendered(node.prompt, run)
    run.started = {"kind": "agent", "role": node.role, "run_mode": node.run_mode, "role_agent": player.address}
    run.started |= {"remote": player.remote}
    bound = node.timeout + LINK_ALLOWANCE_SECONDS
    try:
        answer = await asyncio.wait_for(ask_remote(home, player, node, prompt, asker, run.mark_started), bound)
    except TimeoutError:
        raise NodeFailed(f"no answer from {player.address} within {bound:g} s", {"timeout_seconds": bound}) from None
    except WardianError as error:
        hint = {"hint": error.hint} if error.hint else {}
        raise NodeFailed(error.message, {"code": error.code} | hint | error.details) from None
    reply = answer.get("reply") or {}
    details = {"request_id": answer.get("request_id"), "reply_status": reply.get("status")}
    if reply.get("status") != "done":
        raise NodeFailed(f"{player.address} replied {reply.get('status')}: {reply.get('body')}", details)
    body = str(reply.get("body") or "")
    output = body if node.output_schema is None else json_output(body, node.output_schema)
    return {"output": output, "exit_code": 0} | details


async def _launch(
    node: AgentNode, player: Player, run: NodeRun, parts: AgentNodeParts, prompt: str
) -> tuple[SpawnContext, LaunchPlan, dict[str, str]]:
    lifecycle, agent = parts.lifecycle, player.agent
    if node.run_mode == "inherit_resume":
        assert agent is not None  # validation: inherit modes need an agent's role
        await _until_off(agent, node)
        if not agent.row.get("provider_session_id"):
            raise NodeFailed(f"agent {agent.name} has no provider session to resume")
        ctx, plan, env = lifecycle.plan_launch(agent, "resume", mode="headless", prompt=prompt)
        return ctx, plan, env | {"WARDIAN_SESSION_ID": run.session_id}
    settings = lifecycle.provider_settings(player.provider)
    session = lifecycle.new_session_id(player.provider)
    if node.run_mode == "inherit_fresh" and agent is not None:
        # The agent's launch configuration and include roots; its own home and session stay untouched.
        base = build_context(
            parts.home,
            agent.row,
            mode="headless",
            prompt=prompt,
            provider_session_id=session,
            provider_settings=settings,
        )
        name = f"{agent.name}-{node.id}"
    else:
        base = SpawnContext(
            agent_uuid=run.session_id,
            agent_name=f"wf-{node.id}",
            class_name=agent.row["class"] if agent else "Workflow",
            provider=player.provider,
            workspace=Path(agent.row["workspace"]) if agent and agent.row["workspace"] else run.workspace,
            wardian_home=parts.home,
            agent_dir=run.directory,
            mode="headless",
            prompt=prompt,
            provider_session_id=session,
            launch=LaunchConfig(settings=settings),
        )
        name = base.agent_name
    ctx = base.model_copy(update={"agent_uuid": run.session_id, "agent_name": name, "agent_dir": run.directory})
    if node.worktree:
        ctx = await _in_worktree(ctx, node, run, parts)
    return lifecycle.plan_for(ctx, run.session_id)


async def _in_worktree(ctx: SpawnContext, node: AgentNode, run: NodeRun, parts: AgentNodeParts) -> SpawnContext:
    """`ctx` moved into a new worktree of its workspace, kept after the run for review."""
    try:
        made = await parts.lifecycle.worktrees.create_for_node(ctx.workspace, run.run_id, node.id)
    except WardianError as error:
        raise NodeFailed(error.message, {"code": error.code} | error.details) from None
    # `notes` says when the repository's own set-up was skipped (not trusted) and how to trust it.
    run.worktree = {key: made.get(key) for key in ("id", "branch", "worktree_folder", "setup", "notes")}
    return ctx.model_copy(update={"workspace": Path(made["folder"])})


async def _until_off(agent: LiveAgent, node: AgentNode) -> None:
    """Two writers on one provider session corrupt it: a live role agent is refused, or waited for."""
    if not agent.is_alive:
        return
    if not node.wait_for_agent_off:
        raise NodeFailed(
            f"agent {agent.name} is live ({agent.status}): resuming its provider session now would make two writers",
            {"agent": agent.name, "hint": "Pause it (`wardian agent pause`) or set wait_for_agent_off on the node."},
        )
    await wait_for_change(agent, lambda _: not agent.is_alive, node.timeout)


def final_reply(events: list[dict[str, Any]]) -> str:
    """The provider's final reply text: the last turn_completed's message."""
    for event in reversed(events):
        if event.get("kind") == "turn_completed" and event.get("message"):
            return str(event["message"])
    return ""


def json_output(reply: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The first JSON object in the reply that has the schema's required keys."""
    decoder = json.JSONDecoder()
    required = [key for key in schema.get("required", []) if isinstance(key, str)]
    at = reply.find("{")
    while at >= 0:
        try:
            value, _ = decoder.raw_decode(reply, at)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict) and all(key in value for key in required):
            return value
        at = reply.find("{", at + 1)
    raise NodeFailed(
        "the reply holds no JSON object with the output schema's required keys",
        {"required": required, "reply_head": reply[:500]},
    )


def _failure(result: dict[str, Any]) -> str:
    if result["timed_out"]:
        return "the provider run timed out"
    errors = [event.get("message") for event in result["events"] if event.get("kind") == "error"]
    detail = next((message for message in reversed(errors) if message), None) or result["stderr_tail"][-300:]
    return f"the provider run ended {result['status']} (exit {result['exit_code']}): {detail}".rstrip(": ")
