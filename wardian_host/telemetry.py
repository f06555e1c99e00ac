"""The sources besides the PTY that a provider reads status from (`approval_source`).

Asked at launch, and again once `session_started` makes the provider session id
known, because the answer may name a file that only exists from then on.
"""

import asyncio
import logging
from typing import Callable

from wardian_core.provider_models import OutputSource, SpawnContext
from wardian_host.file_tail import FileTail
from wardian_host.live_agent import LiveAgent
from wardian_host.output_feed import OutputFeed

log = logging.getLogger(__name__)


class TelemetrySources:
    def __init__(
        self, loop: asyncio.AbstractEventLoop, feed: OutputFeed, ask: Callable[[str, SpawnContext], OutputSource | None]
    ) -> None:
        self._loop = loop
        self._feed = feed
        self._ask = ask  # (provider, ctx) -> the provider's approval_source answer

    def refresh(self, agent: LiveAgent, ctx: SpawnContext) -> None:
        """(Re)open the agent's telemetry source if the provider now names another file."""
        source = self._ask(agent.row["provider"], ctx)
        current = agent.tails.get("telemetry")
        if source is None or source.path is None:
            return
        if current is not None and current.path == source.path:
            return
        if current is not None:
            current.close()
        incarnation = agent.incarnation
        agent.parser_states[source.name] = {}
        self._feed.feed(agent, incarnation, ctx, source, b"")
        tail = FileTail(self._loop, source.path, lambda line: self._feed.feed(agent, incarnation, ctx, source, line))
        agent.tails["telemetry"] = tail
        tail.start()
        log.info("agent %s: following %s as %s", agent.name, source.path, source.name)

    @staticmethod
    def close(agent: LiveAgent) -> None:
        for tail in agent.tails.values():
            tail.close()
        agent.tails.clear()
