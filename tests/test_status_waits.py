"""`agent wait` on an agent whose launch is under way: its outcome, not the `off` before it, decides."""

import asyncio
from pathlib import Path

import pytest

from wardian_core import identity
from wardian_core.db import open_writer
from wardian_core.db.agents import agent_row
from wardian_core.errors import WardianError
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.output.buffer import OutputBuffer


def test_a_wait_during_a_launch_waits_for_its_outcome_and_an_off_agent_is_exited(tmp_path: Path) -> None:
    # cc46: the web view's spawn form, then `agent wait formed --until idle` at once: the agent was
    # registered (off) and its terminal not yet launched, and the wait answered agent_exited.
    conn = open_writer(tmp_path)
    tracker = StatusTracker(conn, lambda *_: None)
    row = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="formed")
    agent = LiveAgent(row=agent_row(row), buffer=OutputBuffer(1024))

    async def scenario() -> str:
        agent.launching = True
        waiting = asyncio.ensure_future(wait_for_status(agent, "idle", 5, False))
        await asyncio.sleep(0)  # the wait is listening, not answered
        assert not waiting.done()
        agent.launching = False
        tracker.set_status(agent, "starting", {"source": "host"})
        tracker.set_status(agent, "idle", {"source": "pty"})
        return (await waiting).status

    assert asyncio.run(scenario()) == "idle"
    tracker.set_status(agent, "off", {"source": "host"})
    with pytest.raises(WardianError, match="so it will not become idle"):
        asyncio.run(wait_for_status(agent, "idle", 5, False))
    conn.close()
