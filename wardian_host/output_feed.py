"""Feeds one agent's output sources to its provider's parser and its events to the tracker.

Each source has its own parser state; a parser that asks to be called again after a
delay gets one timer (replaced by the next request), so quiet-time rules cost nothing
while output flows and nothing is polled. Output from an incarnation the agent no
longer runs is dropped before it reaches the parser.
"""

import asyncio
import logging
from collections.abc import Callable

from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_host.live_agent import LiveAgent

log = logging.getLogger(__name__)

class OutputFeed:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        parse: Callable[[str, SpawnContext, OutputSource, bytes, dict], ParseResult],
        on_event: Callable[[LiveAgent, ProviderEvent], None],
    ) -> None:
        self._loop = loop
        self._parse = parse
        self._on_event = on_event

    def open_source(self, agent: LiveAgent, ctx: SpawnContext, source: OutputSource) -> None:
        agent.parser_states[source.name] = {}
        self.feed(agent, agent.incarnation, ctx, source, b"")

    def feed(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext, source: OutputSource, data: bytes) -> None:
        if incarnation != agent.incarnation:
            return  # late output of a replaced process
        state = agent.parser_states.setdefault(source.name, {})
        try:
            result = self._parse(agent.row["provider"], ctx, source, data, state)
        except Exception:  # a parser bug must not take the host down
            log.exception("parser of %s failed on %s", agent.row["provider"], source.name)
            return
        for event in result.events:
            self._on_event(agent, event)
        if result.call_again_after is not None:
            self._schedule(agent, incarnation, ctx, source, result.call_again_after)

    def _schedule(
        self, agent: LiveAgent, incarnation: int, ctx: SpawnContext, source: OutputSource, delay: float
    ) -> None:
        previous = agent.parser_timers.pop(source.name, None)
        if previous is not None:
            previous.cancel()
        agent.parser_timers[source.name] = self._loop.call_later(
            delay, self._call_again, agent, incarnation, ctx, source
        )

    def _call_again(self, agent: LiveAgent, incarnation: int, ctx: SpawnContext, source: OutputSource) -> None:
        agent.parser_timers.pop(source.name, None)
        self.feed(agent, incarnation, ctx, source, b"")

    @staticmethod
    def close(agent: LiveAgent) -> None:
        for timer in agent.parser_timers.values():
            timer.cancel()
        agent.parser_timers.clear()
        agent.parser_states.clear()
