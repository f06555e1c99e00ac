"""A terminal adopted from the terminal server: its ring's output replayed without a second report.

A host that starts while the terminal server holds an agent's terminal (after a restart
or a crash of the previous host) rebuilds the agent's buffer, screen and parser state from
the ring. The ring's bytes up to the offset the previous host acknowledged (it acks each
output it hands its parser) were that host's: the parser reads them to know where the
agent is, but what it makes of them was reported already (statuses, evidence), so those
events are dropped (`OutputFeed.replay`). The server replays the ring in the chunks it read
it in, so a parser that looks at a chunk's last line sees the prompts it saw the first time.
The rest — unread when that host died, or printed while no host listened — is parsed as
new (an event seen twice changes no status twice). Between the two the parser is told it
caught up (`caught_up`): a rule that counts time from the launch counts from there.

The terminal keeps the size it had: a viewer may have changed it (`viewer_sizes`) before the
previous host ended, and no host was there to set it back. The server tells that size, and the
screen is rebuilt at it; the viewers' rule goes on from there (the next viewer that leaves
brings the agent back to its own size).
"""

from collections.abc import Callable
from dataclasses import dataclass

from wardian_core.terminal_wire import TerminalState
from wardian_host.agents.live_agent import LiveAgent


@dataclass
class Replay:
    remaining: int  # bytes of the ring still to come that the previous host acknowledged
    on_caught_up: Callable[[], None]  # told once, as soon as nothing of it is left to replay
    told: bool = False

    def split(self, data: bytes) -> tuple[bytes, bytes]:
        """`data` cut into what the previous host saw and what is new."""
        seen = max(min(self.remaining, len(data)), 0)
        self.remaining -= seen
        return data[:seen], data[seen:]

    def check(self) -> None:
        """Tell `on_caught_up` once the replay is over (before the first new byte is parsed)."""
        if self.remaining <= 0 and not self.told:
            self.told = True
            self.on_caught_up()


@dataclass
class ParsedOffset:
    """How far a launch's output was parsed, told to the terminal server after each parse: the
    offset an adopting host replays to without reporting again."""

    offset: int
    tell: Callable[[int], None]

    def add(self, count: int) -> None:
        self.offset += count
        self.tell(self.offset)


def take_size(agent: LiveAgent, state: TerminalState) -> None:
    """Draw the agent's screen at the size its adopted terminal has (called on a screen just
    restarted, so the ring's whole replay is drawn at it), and note that the PTY has it."""
    if state.exited:  # no PTY left to have a size: the next launch starts at its own
        return
    size = (state.rows, state.cols)
    agent.viewers.applied = size
    if size != agent.viewers.own:
        agent.screen.resize(*size)
