"""Watching `headless` agents until their processes end.

A headless agent runs in no terminal of ours, so no exit watch tells when it ends, and it
is not our child: no exit code either. Every CHECK_SECONDS its own process is looked at by
pid and start time (a cheap look, and a zombie is dead); only once that is gone are the
other processes its launch recorded searched for. When none is left the agent goes `off`,
so `agent wait --until off` returns and `agent resume` relaunches it.
"""

import asyncio
import contextlib
import logging
import sqlite3

from wardian_core.db import agents as agent_rows
from wardian_core.process_identity import ProcessIdentity
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.terminal import process_tree

log = logging.getLogger(__name__)

CHECK_SECONDS = 1.0


def _ended(identity: ProcessIdentity | None) -> bool:
    """No process of the launch `identity` names is alive. Blocking: run in a thread."""
    if identity is None:
        return True
    return process_tree.own_process(identity) is None and not process_tree.agent_processes(identity)


class HeadlessWatch:
    def __init__(
        self,
        registry: AgentRegistry,
        tracker: StatusTracker,
        conn: sqlite3.Connection,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        self._registry = registry
        self._tracker = tracker
        self._conn = conn
        self._check_seconds = check_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._check_seconds)
            try:
                await self.check()
            except Exception:  # one failed look must not end the watch of every agent
                log.exception("headless watch: a check failed")

    async def check(self) -> None:
        """One look at every headless agent; those whose processes all ended go `off`."""
        for agent in self._registry.all():
            if agent.status != "headless" or agent.lock.locked():
                continue  # a kill, restart or delete in progress decides its status itself
            if await asyncio.to_thread(_ended, agent.process_identity):
                self._mark_off(agent)

    def _mark_off(self, agent: LiveAgent) -> None:
        if agent.status != "headless" or agent.lock.locked() or self._registry.get(agent.uuid) is not agent:
            return  # changed while its processes were looked for
        agent_rows.update_columns(self._conn, agent.uuid, pid=None)
        self._registry.refresh(agent)
        evidence = {"source": "host", "event": "exit", "rule": "the processes of its launch ended (headless)"}
        self._tracker.set_status(agent, "off", evidence)
