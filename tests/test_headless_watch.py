"""The watch of `headless` agents: one whose processes all ended goes `off`, a living one stays."""

import asyncio
import subprocess
from pathlib import Path

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_host.agents.headless_watch import HeadlessWatch
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.terminal import process_tree


def test_a_headless_agent_goes_off_once_its_own_process_ended_and_not_before(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    # Its own process, not ours to reap once it ends: a zombie until the test waits for it.
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        row = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="hz")
        launched = process_tree.capture(child.pid, child.pid, token=None)
        agent_rows.update_columns(conn, row["uuid"], pid=child.pid, process_identity=launched.stored())
        registry = AgentRegistry(conn, 1024)
        tracker = StatusTracker(conn, lambda *_: None)
        agent = registry.resolve("hz")
        tracker.set_status(agent, "headless", {"source": "host", "event": "recovery"})
        watch = HeadlessWatch(registry, tracker, conn)

        asyncio.run(watch.check())
        assert (agent.status, agent.row["pid"]) == ("headless", child.pid)

        child.kill()
        child.wait()
        asyncio.run(watch.check())
        assert (agent.status, agent.row["pid"]) == ("off", None)
        assert agent.status_evidence is not None and agent.status_evidence["event"] == "exit"
        stored = agent_rows.get_agent(conn, agent.uuid)
        assert stored is not None and (stored["status"], stored["pid"]) == ("off", None)
    finally:
        child.kill()
        child.wait()
        conn.close()
