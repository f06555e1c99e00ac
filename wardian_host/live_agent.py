"""What the host knows about one agent while it runs: its row, process, output and parsers."""

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wardian_host.output_buffer import OutputBuffer
from wardian_host.terminal import Terminal

StatusListener = Callable[["LiveAgent", str], None]


@dataclass
class LiveAgent:
    row: dict[str, Any]
    buffer: OutputBuffer
    status_evidence: dict[str, Any] | None = None
    # Each launch is a new incarnation; output and events of an older one are dropped.
    incarnation: int = 0
    terminal: Terminal | None = None
    pending_input: bytearray = field(default_factory=bytearray)
    # PTY output waiting for the parser while a flood is coalesced (see Supervisor).
    parse_backlog: bytearray = field(default_factory=bytearray)
    parse_window: asyncio.TimerHandle | None = None
    parser_states: dict[str, dict[str, Any]] = field(default_factory=dict)
    parser_timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    listeners: set[StatusListener] = field(default_factory=set)
    output_listeners: set[Callable[[int, bytes], None]] = field(default_factory=set)
    # Recent status changes with the output cursor at the time, for `agent watch`.
    status_log: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=256))
    # The launch context of the running incarnation, and the files it is followed through.
    context: Any = None
    tails: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None
    exited: asyncio.Event = field(default_factory=asyncio.Event)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def uuid(self) -> str:
        return str(self.row["uuid"])

    @property
    def name(self) -> str:
        return str(self.row["name"])

    @property
    def status(self) -> str:
        return str(self.row["status"])

    @property
    def is_running(self) -> bool:
        return self.terminal is not None

    def snapshot(self) -> dict[str, Any]:
        return dict(self.row) | {"status_evidence": self.status_evidence}
