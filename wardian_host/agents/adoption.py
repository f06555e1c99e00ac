"""A terminal adopted from the terminal server: its ring's output replayed without a second report.

A host that starts while the terminal server holds an agent's terminal (after a restart
or a crash of the previous host) rebuilds the agent's buffer, screen and parser state from
the ring. The ring's bytes up to the offset the server had sent the previous host were
that host's: the parser reads them to know where the agent is, but what it makes of them
was reported already (statuses, evidence), so those events are dropped here. What the agent
printed while no host listened is parsed as new.
"""

from collections.abc import Callable
from dataclasses import dataclass

from wardian_core.provider_models import ProviderEvent
from wardian_host.agents.live_agent import LiveAgent


@dataclass
class Replay:
    remaining: int  # bytes of the ring still to come that the previous host was sent
    replaying: bool = False

    def split(self, data: bytes) -> tuple[bytes, bytes]:
        """`data` cut into what the previous host saw and what is new."""
        seen = min(self.remaining, len(data))
        self.remaining -= seen
        return data[:seen], data[seen:]

    def unless_replaying(
        self, handle: Callable[[LiveAgent, ProviderEvent], None], agent: LiveAgent, event: ProviderEvent
    ) -> None:
        if not self.replaying:
            handle(agent, event)
