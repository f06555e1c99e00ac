"""Owns agents' terminals: starts them, reads and writes without blocking, notices exits.

Everything runs on the event loop through readiness callbacks: output through
`add_reader` on the PTY, input through a queue drained by `add_writer` (a long paste
into a busy child never blocks the host), exit through a pidfd (EOF on the PTY is not
exit: a grandchild may still hold it open).
"""

import asyncio
import logging
import signal
from collections.abc import Callable

from wardian_core.provider_models import PTY_SOURCE, LaunchPlan, SpawnContext
from wardian_host import process_tree
from wardian_host.live_agent import LiveAgent
from wardian_host.output_feed import OutputFeed
from wardian_host.terminal import spawn_terminal

log = logging.getLogger(__name__)

READ_BATCH_BYTES = 256 * 1024
PARSE_WINDOW_SECONDS = 0.005

ExitHandler = Callable[[LiveAgent, int | None, str | None], None]


class Supervisor:
    def __init__(self, loop: asyncio.AbstractEventLoop, feed: OutputFeed, on_exit: ExitHandler) -> None:
        self._loop = loop
        self._feed = feed
        self._on_exit = on_exit

    def launch(self, agent: LiveAgent, ctx: SpawnContext, plan: LaunchPlan, env: dict[str, str]) -> int:
        terminal = spawn_terminal(plan.argv, env, plan.cwd)
        agent.incarnation += 1
        agent.terminal = terminal
        agent.stop_reason = None
        agent.exited = asyncio.Event()
        agent.pending_input.clear()
        incarnation = agent.incarnation
        self._loop.add_reader(terminal.fileno(), self._read, agent, incarnation, ctx)
        self._loop.add_reader(terminal.exit_fileno(), self._exited, agent, incarnation)
        self._feed.open_source(agent, ctx, PTY_SOURCE)
        return terminal.pid

    def _read(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext) -> None:
        terminal = agent.terminal
        if terminal is None or incarnation != agent.incarnation:
            return
        # Drain what is there (up to a bound) so a flood costs one parser call per batch,
        # not one per 4 KiB read, and other agents still get their turn on the loop.
        batch = bytearray()
        while len(batch) < READ_BATCH_BYTES:
            data = terminal.read_available()
            if data is None:
                break
            if not data:  # every slave end closed; the exit comes through the pidfd
                self._loop.remove_reader(terminal.fileno())
                break
            batch += data
        if batch:
            self.record_output(agent, incarnation, ctx, bytes(batch))

    def record_output(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext, data: bytes) -> None:
        cursor = agent.buffer.end_cursor
        agent.buffer.append(data)
        for listener in list(agent.output_listeners):
            listener(cursor, data)
        agent.parse_backlog += data
        if agent.parse_window is None:
            self._parse_backlog(agent, incarnation, ctx)

    def _parse_backlog(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext) -> None:
        """Parse what arrived, then hold further output for a few milliseconds.

        Output after a pause is parsed at once; a flood costs one parser call per window
        instead of one per 4 KiB read. The window exists only while output flows.
        """
        agent.parse_window = None
        if not agent.parse_backlog:
            return
        data = bytes(agent.parse_backlog)
        agent.parse_backlog.clear()
        self._feed.feed(agent, incarnation, ctx, PTY_SOURCE, data)
        agent.parse_window = self._loop.call_later(PARSE_WINDOW_SECONDS, self._parse_backlog, agent, incarnation, ctx)

    def _flush_backlog(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext) -> None:
        self._parse_backlog(agent, incarnation, ctx)
        if agent.parse_window is not None:
            agent.parse_window.cancel()
            agent.parse_window = None

    def _exited(self, agent: LiveAgent, incarnation: int) -> None:
        terminal = agent.terminal
        if terminal is None or incarnation != agent.incarnation:
            return
        self._loop.remove_reader(terminal.exit_fileno())
        ctx = agent.context
        while tail := terminal.read_available():  # what the child wrote just before it died
            if ctx is not None:
                self.record_output(agent, incarnation, ctx, tail)
        if ctx is not None:
            self._flush_backlog(agent, incarnation, ctx)
        self._loop.remove_reader(terminal.fileno())
        self._loop.remove_writer(terminal.fileno())
        exit_code = terminal.reap()
        terminal.close()
        agent.terminal = None
        self._feed.close(agent)
        self._on_exit(agent, exit_code, agent.stop_reason)
        agent.exited.set()

    def write(self, agent: LiveAgent, data: bytes) -> None:
        if agent.terminal is None:
            raise RuntimeError(f"agent {agent.name} has no terminal")
        agent.pending_input += data
        self._flush(agent)

    def _flush(self, agent: LiveAgent) -> None:
        terminal = agent.terminal
        if terminal is None:
            return
        written = terminal.write_some(bytes(agent.pending_input[:65536]))
        del agent.pending_input[:written]
        if agent.pending_input:
            self._loop.add_writer(terminal.fileno(), self._flush, agent)
        else:
            self._loop.remove_writer(terminal.fileno())

    async def stop(self, agent: LiveAgent, reason: str, grace_seconds: float = 5.0) -> None:
        """End the agent's whole process tree; `reason` marks the exit as caused by the host."""
        agent.stop_reason = reason
        if agent.terminal is not None:
            # As when a terminal window closes: shells and TUIs that ignore SIGTERM end on a hangup.
            agent.terminal.signal_group(signal.SIGHUP)
        root_pid = agent.terminal.pid if agent.terminal else agent.row.get("pid")
        members = await asyncio.to_thread(process_tree.agent_processes, agent.uuid, root_pid)
        if members:
            survivors = await asyncio.to_thread(process_tree.terminate, members, grace_seconds)
            if survivors:
                log.error("agent %s: processes %s survived SIGKILL", agent.name, survivors)
        if agent.terminal is not None:
            await agent.exited.wait()
