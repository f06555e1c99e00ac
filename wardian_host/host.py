"""The host: one process per WARDIAN_HOME owning every agent's terminal.

Its parts are wired together here, once, at start-up: plugins, state.db, the agent
registry, the status tracker, the output feed, the PTY supervisor, the lifecycle
operations and the control server.
"""

import asyncio
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wardian_core.clock import now_iso
from wardian_core.db import open_writer
from wardian_core.db.events import prune_events
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.settings import load_settings
from wardian_host import recovery
from wardian_host.control_server import ControlServer
from wardian_host.handlers import build_handlers
from wardian_host.launcher_script import write_launcher
from wardian_host.lifecycle import AgentLifecycle
from wardian_host.live_agent import LiveAgent
from wardian_host.output_feed import OutputFeed
from wardian_host.plugins import load_plugins
from wardian_host.registry import AgentRegistry
from wardian_host.spawn_context import build_context
from wardian_host.status_tracker import StatusTracker
from wardian_host.supervisor import Supervisor
from wardian_host.telemetry import TelemetrySources

log = logging.getLogger(__name__)

PRUNE_INTERVAL_SECONDS = 3600.0


class Host:
    def __init__(self, home: Path, base_env: dict[str, str] | None = None) -> None:
        self.home = home
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.started_at = now_iso()
        self._stop = asyncio.Event()

    def request_stop(self) -> None:
        asyncio.get_running_loop().call_soon(self._stop.set)

    async def run(self, on_ready: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        settings = load_settings(self.home)
        self.conn = open_writer(self.home)
        self.conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at checkpoints, safe on crash
        self.plugins = load_plugins()
        for failure in self.plugins.failures:
            log.warning("plugin %s failed to load (%s): %s", failure.name, failure.stage, failure.error)
        self.registry = AgentRegistry(self.conn, settings.host.output_buffer_bytes)
        self.tracker = StatusTracker(self.conn, self._notify_status)
        self.feed = OutputFeed(loop, self._parse, self._on_event)
        self.supervisor = Supervisor(loop, self.feed, lambda *args: self.lifecycle.on_exit(*args))
        self.telemetry = TelemetrySources(loop, self.feed, self._approval_source)
        self.lifecycle = AgentLifecycle(
            self.home, self.conn, self.plugins, self.registry, self.tracker, self.supervisor, self.telemetry,
            self.base_env,
        )
        recovery.reconcile(self.registry, self.tracker, self.conn)
        self._prune()
        write_launcher(self.home)
        self.server = ControlServer(self.home, build_handlers(self))
        await self.server.start()
        for signal_number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signal_number, self._stop.set)
        log.info("host %s serving %s on %s", os.getpid(), self.home, self.server.path)
        on_ready()
        await self._stop.wait()
        log.info("host stopping")
        await self.lifecycle.stop_all()
        await self.server.close()
        self.conn.close()

    def _prune(self) -> None:
        removed = prune_events(self.conn)
        if removed:
            log.info("pruned %d events", removed)
        asyncio.get_running_loop().call_later(PRUNE_INTERVAL_SECONDS, self._prune)

    def _parse(
        self, provider: str, ctx: SpawnContext, source: OutputSource, data: bytes, state: dict[str, Any]
    ) -> ParseResult:
        return self.plugins.call(provider, "parse_output", ctx=ctx, source=source, data=data, state=state)

    def _approval_source(self, provider: str, ctx: SpawnContext) -> OutputSource | None:
        return self.plugins.call(provider, "approval_source", ctx=ctx)

    def _on_event(self, agent: LiveAgent, event: ProviderEvent) -> None:
        self.tracker.apply_event(agent, event)
        if event.kind == "session_started" and event.session_id and agent.context is not None:
            agent.context = agent.context.model_copy(update={"provider_session_id": event.session_id})
            try:
                self.telemetry.refresh(agent, agent.context)
            except Exception:
                log.exception("agent %s: its provider's approval_source failed", agent.name)

    def _notify_status(self, agent: LiveAgent, previous: str, current: str, event: ProviderEvent | None) -> None:
        ctx = build_context(self.home, agent.row)
        self.plugins.notify("status_changed", ctx=ctx, previous=previous, current=current, event=event)
