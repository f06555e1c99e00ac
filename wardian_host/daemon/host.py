"""The host: one process per WARDIAN_HOME owning every agent's terminal.

Every part is built here, once, in `Host.__init__`, and handed the collaborators it
uses: plugins, state.db, the agent registry, the status tracker, the output feed, the
terminal supervisor, the lifecycle operations, the sender and the control server.
`run` only starts and stops them. The parts a request reaches are public attributes, so a
test can build the host in its own process and call the one it means
(`wardian_host.testing.in_process`): its failure then names a function, not a subprocess.
"""

import asyncio
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.budgets import raise_hint
from wardian_core.clock import now_iso
from wardian_core.control.answers import HostStatusAnswer, TerminalServerStatus
from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_core.db import open_writer
from wardian_core.db.empty_file import take_notice
from wardian_core.db.events import prune_events
from wardian_core.db.usage import prune_usage
from wardian_core.errors import WardianError
from wardian_core.limits import AgentLimit
from wardian_core.mcp_registration import registered_or_why_not
from wardian_core.mcp_tools import SERVER_NAME
from wardian_core.provider_models import ProviderEvent
from wardian_core.pty_backend import chosen_backend
from wardian_core.settings import load_settings
from wardian_core.settings.model import LimitsSettings
from wardian_core.version import __version__
from wardian_host.agents import recovery
from wardian_host.agents.asking import AskDesk
from wardian_host.agents.budgets import BudgetKeeper
from wardian_host.agents.headless_watch import HeadlessWatch
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.limit_continuing import Continuing
from wardian_host.agents.limit_resumer import LimitResumer, plan_for
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.sending import Sender
from wardian_host.agents.spawn_context import build_context
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.daemon.budget_handlers import build_budget_handlers
from wardian_host.daemon.caller_identity import Caller, PeerProcess, classify_caller
from wardian_host.daemon.control_server import ControlServer
from wardian_host.daemon.handlers import build_handlers
from wardian_host.daemon.hook_endpoint import HookEndpoint
from wardian_host.daemon.host_lock import wait_until_gone
from wardian_host.daemon.inbox_handlers import build_inbox_handlers
from wardian_host.daemon.launcher_script import write_launcher
from wardian_host.daemon.limit_handlers import build_limit_handlers
from wardian_host.daemon.web_handlers import WebView
from wardian_host.notify.limit_words import limit_words
from wardian_host.notify.rules import NoticeRules
from wardian_host.notify.settings import NotifySettingsReader
from wardian_host.notify.sinks import Sinks
from wardian_host.output.feed import OutputFeed
from wardian_host.providers.manager import Plugins, load_plugins
from wardian_host.terminal.agent_cgroups import AgentCgroups
from wardian_host.terminal.server.process import running_server_pid
from wardian_host.terminal.server_client import ServerPtys
from wardian_host.terminal.supervisor import TerminalSupervisor
from wardian_host.workflows.runner import WorkflowRunner

log = logging.getLogger(__name__)

PRUNE_INTERVAL_SECONDS = 3600.0
# Between presses of an interrupt key typed more than once: each read alone, well within
# OpenCode's 5 s for its second Esc (1.18.33).
INTERRUPT_GAP_SECONDS = 0.3
# How long a stopping host waits for the terminal server it told to end: `host stop` returns
# once the host is gone, and the server must not outlive that (it ends in milliseconds).
SERVER_EXIT_SECONDS = 10.0


class Host:
    """Built inside the event loop that will run it (`asyncio.run` of a coroutine that makes it)."""

    def __init__(self, home: Path, base_env: dict[str, str] | None = None, plugins: Plugins | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.home = home
        self.started_at = now_iso()
        self._stop = asyncio.Event()
        self._keep_agents = False
        self._pty_backend = chosen_backend()  # a bad WARDIAN_PTY_BACKEND fails the start with its envelope
        settings = load_settings(home)
        self._conn = open_writer(home)
        self._state_db_notice = take_notice(home)
        if self._state_db_notice is not None:
            log.warning("%s", self._state_db_notice.message)
        self._conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at checkpoints, safe on crash
        self.plugins = load_plugins() if plugins is None else plugins
        for failure in self.plugins.failures:
            log.warning("plugin %s failed to load (%s): %s", failure.name, failure.stage, failure.error)
        self.registry = AgentRegistry(self._conn, settings.host.output_buffer_bytes)
        self.tracker = StatusTracker(self._conn, self._notify_status)
        self._headless_watch = HeadlessWatch(self.registry, self.tracker, self._conn)
        self.terminals = TerminalSupervisor(self._pty_backend, self._connect_terminals, AgentCgroups.open(home))
        self._ptys: ServerPtys | None = None  # the terminal server, reached in `start`
        feed = OutputFeed(loop, self.plugins)
        self.lifecycle = AgentLifecycle(
            home,
            self._conn,
            self.plugins,
            self.registry,
            self.tracker,
            self.terminals,
            feed,
            dict(os.environ if base_env is None else base_env),
        )
        self.sender = Sender(self.registry, self.plugins, self.terminals)
        self.budgets = BudgetKeeper(home, self._conn, self._interrupt)
        self.registry.prompt_refusal = self.budgets.refusal
        self.tracker.usage_observers.append(self.budgets.usage_recorded)
        self._limits_settings = settings.limits
        self.limit_resumer = self._limit_resumer()
        self.desk = AskDesk(self._conn, self.registry, self.sender, self._mcp_server_of)
        self.workflows = WorkflowRunner(
            home, self._conn, self.registry, self.lifecycle, self.lifecycle.base_env, lambda: self.web.changed()
        )
        notify_settings = NotifySettingsReader(home, settings.notify)
        self.notices = NoticeRules(loop, lambda: notify_settings().unseen_turn_seconds)
        self._sinks = Sinks(lambda: notify_settings().urls, self.plugins.notify)
        self.notices.subscribe(self._sinks.told)
        self.budgets.listeners.append(self._notify_budget)
        self.tracker.limits.listeners.append(self._notify_limit)
        self.web = WebView(
            home, self._conn, self._agent_rows, self.notices, self._sinks, self._caller, self.budgets.settings
        )
        # A turn's figures move its tile's budget bars, whether or not its status changed with them.
        self.tracker.usage_observers.append(lambda _: self.web.changed())
        handlers = build_handlers(
            registry=self.registry,
            lifecycle=self.lifecycle,
            sender=self.sender,
            desk=self.desk,
            workflows=self.workflows,
            terminals=self.terminals,
            describe_host=self._describe,
            request_stop=self.request_stop,
            mcp_readiness=self.tracker.mcp_readiness,
        )
        handlers |= build_inbox_handlers(self.registry, self._conn, self.notices, self.web.changed)
        handlers |= build_budget_handlers(self.registry, self.budgets, handlers["agent.spawn"])
        handlers |= build_limit_handlers(self.registry, self.limit_resumer)
        self._server = ControlServer(home, self.web.routes(handlers))
        self._hooks = HookEndpoint(home)

    def _limit_resumer(self) -> LimitResumer:
        """Resumes of the turns usage limits cut, typed as `send` types, relaunched as `restart` does."""
        continuing = Continuing(
            self.tracker.limits,
            self.sender,
            self.terminals.write,
            lambda agent: self.plugins.info(agent.row["provider"]).input_profile.submit_key,
            lambda agent: self.lifecycle.restart(agent.uuid),
        )
        plan = plan_for(lambda agent: build_context(self.home, agent.row), self.plugins.limit_resume)
        return LimitResumer(self.registry, self.tracker.limits, continuing, plan, self._limits)

    def _limits(self) -> LimitsSettings:
        """The `limits.*` settings now (read at each use, as `notify.*`); a file that no longer
        validates leaves the last good values in force."""
        try:
            self._limits_settings = load_settings(self.home).limits
        except WardianError as error:
            log.warning("limits settings kept as they were: %s", error.message)
        return self._limits_settings

    def _notify_limit(self, agent: LiveAgent, step: str, payload: dict[str, Any], limit: AgentLimit | None) -> None:
        words = limit_words(step, agent.name, payload, limit.kind if limit else None)
        if words is not None:
            self.notices.raise_notice("limit", agent.uuid, agent.name, *words)
        self.web.changed()

    def _interrupt(self, agent: LiveAgent) -> bool:
        """Type the provider's interrupt key (a hard budget); False when it declares none."""
        profile = self.plugins.info(agent.row["provider"]).input_profile
        if profile.interrupt_key is None:
            return False
        key = profile.interrupt_key.encode()
        self.terminals.write(agent.uuid, key)
        # Each further press alone: a TUI reads keys that come in one write as one (Esc Esc: Alt+Esc).
        loop = asyncio.get_running_loop()
        for press in range(1, profile.interrupt_presses):
            loop.call_later(INTERRUPT_GAP_SECONDS * press, self._press_again, agent, key)
        return True

    def _press_again(self, agent: LiveAgent, key: bytes) -> None:
        """A further press of the interrupt key, unless the agent's terminal went meanwhile."""
        if agent.is_running:
            self.terminals.write(agent.uuid, key)

    def _notify_budget(self, agent: LiveAgent, held: dict[str, Any] | None) -> None:
        if held is not None:
            title = f"{agent.name} reached its budget"
            self.notices.raise_notice("budget", agent.uuid, agent.name, title, raise_hint(agent.name, held["reached"]))
        self.web.changed()

    def _caller(self, peer: PeerProcess) -> Caller:
        """Which agent, if any, `peer` is (the web view refuses agents as `reply` does)."""
        return classify_caller(peer, self.registry.all(), self.terminals.cgroups)

    async def _connect_terminals(self) -> ServerPtys:
        """The home's terminal server, which holds every agent's PTY (started if none runs)."""
        self._ptys = await ServerPtys.connect(self.home)
        return self._ptys

    def request_stop(self, keep_agents: bool = False) -> None:
        """Stop the host; with `keep_agents` its agents go on in the terminal server for the next host."""
        self._keep_agents = keep_agents
        asyncio.get_running_loop().call_soon(self._stop.set)

    async def run(self, on_ready: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        await self.start()
        for signal_number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signal_number, self._stop.set)
        log.info("host %s serving %s on %s", os.getpid(), self.home, self._server.path)
        on_ready()
        await self._stop.wait()
        await self.shutdown()

    async def start(self) -> None:
        """Take over what a previous host left, then serve; the signals stay the caller's."""
        await self.terminals.start()
        if self._ptys is not None:
            self.lifecycle.adopt_all(self._ptys.welcome.terminals)
        recovery.reconcile(self.registry, self.tracker, self._conn)
        self._headless_watch.start()
        self.limit_resumer.start()  # the schedule a previous host stored with each limit
        self.workflows.interrupt_leftovers()
        self._prune()
        write_launcher(self.home)
        await self._hooks.start()  # before the first launch, which projects its address
        await self._server.start()
        await self.web.start()

    async def shutdown(self) -> None:
        log.info("host stopping")
        self.lifecycle.stop_launching()  # before the workflows' stop yields: no spawn slips in meanwhile
        await self._headless_watch.close()
        self.limit_resumer.close()
        await self.workflows.stop_all()
        if not self._keep_agents:
            await self.lifecycle.stop_all()
        await self.web.close()
        self.notices.close()
        await self._sinks.close()
        await self._server.close()
        await self._hooks.close()
        if self._ptys is not None:
            if not self._keep_agents:  # its agents were stopped just above: the server goes with the host
                self._ptys.shutdown()
            await self._ptys.close()
            if not self._keep_agents:
                await self._server_gone(self._ptys.welcome.pid)
        self._conn.close()

    async def _server_gone(self, pid: int) -> None:
        if not await asyncio.to_thread(wait_until_gone, pid, SERVER_EXIT_SECONDS):
            log.warning(
                "the terminal server (pid %s) still runs %g s after it was told to end",
                pid,
                SERVER_EXIT_SECONDS,
            )

    def _describe(self) -> HostStatusAnswer:
        agents = self.registry.all()
        return HostStatusAnswer(
            pid=os.getpid(),
            home=str(self.home),
            version=__version__,
            protocol=PROTOCOL_VERSION,
            socket=str(self._server.path),
            started_at=self.started_at,
            agents=len(agents),
            running=sum(1 for agent in agents if agent.is_running),
            pty_backend=self._pty_backend,
            terminal_server=self._terminal_server(),
            state_db_notice=self._state_db_notice,
        )

    def _terminal_server(self) -> TerminalServerStatus | None:
        """The terminal server this host reaches; None once it has died (its connection ended, or
        its lock is no longer held by its pid): the next launch starts a new one."""
        if self._ptys is None or not self._ptys.alive:
            return None
        welcome = self._ptys.welcome
        if running_server_pid(self.home) != welcome.pid:  # killed: the kernel let its lock go at once
            return None
        return TerminalServerStatus(
            pid=welcome.pid,
            version=welcome.version,
            protocol=welcome.v,
            started_at=welcome.started_at,
            pty_backend=welcome.backend,
        )

    def _prune(self) -> None:
        removed = prune_events(self._conn) + prune_usage(self._conn)
        if removed:
            log.info("pruned %d events and usage rows", removed)
        asyncio.get_running_loop().call_later(PRUNE_INTERVAL_SECONDS, self._prune)

    def _mcp_server_of(self, agent: LiveAgent) -> str | None:
        """The MCP server the agent's CLI is given (as its launches decide), which a question to it names."""
        info = self.plugins.info(agent.row["provider"])
        return SERVER_NAME if registered_or_why_not(load_settings(self.home).mcp, info)[0] else None

    def _agent_rows(self) -> list[dict[str, Any]]:
        return [agent.snapshot() | {"is_running": agent.is_running} for agent in self.registry.all()]

    def _notify_status(self, agent: LiveAgent, previous: str, current: str, event: ProviderEvent | None) -> None:
        awaited = agent.turn_waits.awaited(previous, current)
        evidence = agent.status_evidence or {}
        self.notices.status_changed(agent.uuid, agent.name, previous, current, evidence, turn_awaited=awaited)
        self.web.changed()
        ctx = build_context(self.home, agent.row)
        self.plugins.notify("status_changed", ctx=ctx, previous=previous, current=current, event=event)
        if current == "idle":  # a turn ended: a budget of minutes is checked now too
            self.budgets.check(agent)
