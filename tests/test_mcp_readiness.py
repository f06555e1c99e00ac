"""`idle` means ready, Wardian's MCP tools included: a CLI given Wardian's server is first `idle`
once it has listed the tools, or after the bound with evidence that they are missing."""

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest
from in_process_agents import WAIT_SECONDS
from pydantic import ValidationError
from stand_in_provider import StandIn, registered

from wardian_core import hookimpl, identity
from wardian_core.control.models import SpawnParams
from wardian_core.db import open_writer
from wardian_core.db.agents import agent_row
from wardian_core.parsing.events import event
from wardian_core.provider_models import PTY_SOURCE, LaunchPlan, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.output.buffer import OutputBuffer
from wardian_host.testing.in_process import InProcessHost, serving

TOOL_LISTING_CLI = Path(__file__).parent / "support" / "tool_listing_cli.py"


def _starting_agent(
    conn: sqlite3.Connection, tmp_path: Path, tracker: StatusTracker, registered: bool, name: str = "cc"
) -> LiveAgent:
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name=name)
    agent = LiveAgent(row=agent_row(row), buffer=OutputBuffer(1024))
    tracker.mcp_readiness.launched(agent, registered=registered)
    tracker.set_status(agent, "starting", {"source": "host"})
    return agent


def _ready() -> ProviderEvent:
    return event("ready", PTY_SOURCE, "prompt drawn")


def test_the_first_idle_waits_until_the_cli_lists_wardians_tools(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None)

    async def scenario() -> tuple[str, str, dict[str, object] | None]:
        agent = _starting_agent(conn, tmp_path, tracker, registered=True)
        tracker.apply_event(agent, _ready())
        held = agent.status
        tracker.mcp_readiness.listed(agent)
        return held, agent.status, agent.status_evidence

    held, status, evidence = asyncio.run(scenario())

    assert (held, status) == ("starting", "idle")
    assert evidence is not None and evidence["event"] == "ready" and evidence["mcp_tools"] == "connected"
    conn.close()


def test_a_cli_that_never_lists_the_tools_is_ready_after_the_bound_saying_why(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None, mcp_ready_bound=0.05)  # 30 s unless told
    became_idle = asyncio.Event()

    async def scenario() -> LiveAgent:
        agent = _starting_agent(conn, tmp_path, tracker, registered=True)
        agent.listeners.add(lambda live, status: became_idle.set() if status == "idle" else None)
        tracker.apply_event(agent, _ready())
        assert agent.status == "starting"
        await became_idle.wait()
        return agent

    agent = asyncio.run(scenario())

    assert agent.status == "idle" and agent.mcp_tools == "missing"
    assert agent.status_evidence is not None and agent.status_evidence["mcp_tools"] == "missing"
    assert "did not list Wardian's MCP tools within 0.05 s" in str(agent.status_evidence["mcp_why"])
    conn.close()


def test_a_cli_ready_without_mcp_servers_is_idle_at_once_saying_why(tmp_path: Path) -> None:
    # Gemini in a folder it does not trust starts no MCP server: the bound would wait 30 s for nothing.
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None)
    why = "Gemini starts no MCP server in a folder it does not trust"

    async def scenario() -> tuple[LiveAgent, LiveAgent]:
        untrusted = _starting_agent(conn, tmp_path, tracker, registered=True)
        tracker.apply_event(untrusted, _ready())  # a first prompt, held for the tools
        tracker.apply_event(untrusted, event("approval_requested", PTY_SOURCE, "q", reason="trust", dialog="trust"))
        tracker.apply_event(untrusted, event("approval_resolved", PTY_SOURCE, "closed", answer="rejected"))
        assert untrusted.status == "starting"
        tracker.apply_event(untrusted, _ready().model_copy(update={"without_mcp": why}))
        unregistered = _starting_agent(conn, tmp_path, tracker, registered=False, name="plain")
        tracker.apply_event(unregistered, _ready().model_copy(update={"without_mcp": why}))
        return untrusted, unregistered

    untrusted, unregistered = asyncio.run(scenario())

    assert (untrusted.status, untrusted.mcp_tools) == ("idle", "missing")
    assert untrusted.status_evidence is not None
    assert (untrusted.status_evidence["mcp_tools"], untrusted.status_evidence["mcp_why"]) == ("missing", why)
    # An agent never given the server waited for nothing: its tools stay unregistered, unmentioned.
    assert (unregistered.status, unregistered.mcp_tools) == ("idle", "not_registered")
    assert unregistered.status_evidence is not None and "mcp_why" not in unregistered.status_evidence
    assert tracker.mcp_readiness._held == {}  # the first prompt's bound no longer waits
    conn.close()


def test_only_ready_says_its_cli_runs_without_mcp_servers() -> None:
    with pytest.raises(ValidationError, match="only ready"):
        event("turn_completed", PTY_SOURCE, "prompt drawn", without_mcp="untrusted")


def test_tools_listed_before_the_prompt_or_no_server_given_hold_nothing(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None)

    async def scenario() -> list[str]:
        early = _starting_agent(conn, tmp_path, tracker, registered=True)
        tracker.mcp_readiness.listed(early)  # a CLI connecting its servers before its prompt
        tracker.apply_event(early, _ready())
        row = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="sh")
        plain = LiveAgent(row=agent_row(row), buffer=OutputBuffer(1024))
        tracker.mcp_readiness.launched(plain, registered=False)
        tracker.set_status(plain, "starting", {"source": "host"})
        tracker.apply_event(plain, _ready())
        return [early.status, early.mcp_tools, plain.status, plain.mcp_tools]

    assert asyncio.run(scenario()) == ["idle", "connected", "idle", "not_registered"]
    conn.close()


def test_a_dialog_while_held_leaves_the_release_to_the_next_ready(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None)

    async def scenario() -> list[str]:
        agent = _starting_agent(conn, tmp_path, tracker, registered=True)
        tracker.apply_event(agent, _ready())
        trust = event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust")
        tracker.apply_event(agent, trust)
        seen = [agent.status]
        tracker.mcp_readiness.listed(agent)  # the held ready is not the status now: dropped
        seen.append(agent.status)
        tracker.apply_event(agent, event("approval_resolved", PTY_SOURCE, "prompt", answer="accepted"))
        tracker.apply_event(agent, _ready())
        return [*seen, agent.status]

    assert asyncio.run(scenario()) == ["action_required", "action_required", "idle"]
    conn.close()


class ToolListing(StandIn):
    """A provider whose CLI is given Wardian's server (tests/support/tool_listing_cli.py)."""

    name = "toollisting"
    capabilities = ("interactive", "mcp_tools")

    @hookimpl
    def build_argv(self, ctx: SpawnContext) -> LaunchPlan:
        assert ctx.mcp is not None  # the host registers its server for an `mcp_tools` provider
        return LaunchPlan(argv=[sys.executable, str(TOOL_LISTING_CLI), ctx.mcp.model_dump_json()], cwd=ctx.workspace)

    @hookimpl
    def parse_output(self, ctx: SpawnContext, source: OutputSource) -> "PromptDrawn":
        return PromptDrawn()


class PromptDrawn:
    def feed(self, data: bytes) -> ParseResult:
        return ParseResult(events=[_ready()] if b"READY" in data else [])


def test_a_launch_given_wardians_server_is_first_idle_once_its_cli_lists_the_tools(wardian_home: Path) -> None:
    """Through the host's own launch: the registration it hands the provider is what holds the
    first `ready`, and the listing by the CLI's own `wardian mcp` child is what lets it go."""

    async def scenario(host: InProcessHost) -> tuple[list[str], dict[str, object] | None]:
        params = SpawnParams.model_validate(
            {"provider": "toollisting", "class": "Coder", "workspace": str(wardian_home), "name": "cli"}
        )
        await host.host.lifecycle.spawn(params)
        agent = host.host.registry.resolve("cli")
        seen: list[str] = [agent.mcp_tools]
        drawn = asyncio.Event()
        agent.provider_event_listeners.add(lambda event: drawn.set() if event.kind == "ready" else None)
        await asyncio.wait_for(drawn.wait(), WAIT_SECONDS)
        seen += [agent.status, agent.mcp_tools]
        host.host.terminals.write(agent.uuid, b"list them\r")
        await wait_for_status(agent, "idle", WAIT_SECONDS, next_change=False)
        return [*seen, agent.mcp_tools], agent.status_evidence

    with serving(wardian_home, registered(ToolListing())) as host:
        seen, evidence = host.call(scenario(host))

    assert seen == ["waiting", "starting", "waiting", "connected"]
    assert evidence is not None and (evidence["event"], evidence["mcp_tools"]) == ("ready", "connected")
