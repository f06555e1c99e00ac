"""What the host knows about one agent: its row, whether it runs, its output and statuses.

Who writes what: the registry and the status tracker keep `row` and the status fields
in step with state.db; the lifecycle sets `is_running` and records terminal output
into `buffer`. The PTY itself belongs to the terminal part, parser state to the output feed.
"""

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from wardian_core.clock import now_iso
from wardian_core.control.answers import AgentSnapshot
from wardian_core.db.agents import AgentRow
from wardian_core.mcp_tools import McpToolsState
from wardian_core.process_identity import ProcessIdentity
from wardian_core.provider_models import ProviderEvent
from wardian_core.status_rules import TurnEnd
from wardian_core.statuses import Status
from wardian_host.agents.turn_waits import TurnWaits
from wardian_host.agents.viewer_sizes import ViewerSizes
from wardian_host.output.buffer import OutputBuffer
from wardian_host.output.screen import LazyScreen

StatusListener = Callable[["LiveAgent", Status], None]
OutputListener = Callable[[int, bytes], None]  # (cursor of the first byte, the bytes)
EventListener = Callable[[dict[str, Any]], None]  # one entry of `event_log`, as it is added
ProviderEventListener = Callable[[ProviderEvent], None]


class Speaker(Protocol):
    """Who sends, asks or replies: an agent, or a workflow node run (its own session id as uuid)."""

    @property
    def name(self) -> str: ...

    @property
    def uuid(self) -> str: ...


@dataclass(eq=False)
class LiveAgent:
    row: AgentRow
    buffer: OutputBuffer
    status_evidence: dict[str, Any] | None = None
    # The status it had when its open dialog appeared (set by the status tracker).
    status_before_dialog: Status | None = None
    # When (loop time) the open dialog was reported; `send --approval` lets it settle.
    dialog_opened_at: float | None = None
    # The last turn its provider said ended (set by the status tracker): that turn's late news is no change.
    turn_end: TurnEnd = field(init=False)
    # True while a terminal of this host runs the agent (False for `headless`: alive, not ours).
    is_running: bool = False
    # A launch (spawn, resume) is under way: its outcome, not the status before it, is the agent's.
    launching: bool = False
    listeners: set[StatusListener] = field(default_factory=set)
    # The CLI calls that wait on its turn: a turn one waited on needs no notice that nobody looked.
    turn_waits: TurnWaits = field(default_factory=TurnWaits)
    output_listeners: set[OutputListener] = field(default_factory=set)
    # Recent events with the output cursor at the time, for `agent watch`: status changes
    # (kind `status`) and `wardian ask`'s request, delivery and reply.
    event_log: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=256))
    event_listeners: set[EventListener] = field(default_factory=set)
    # Every event its parsers report, before it is turned into a status: `send` confirms a prompt
    # by a `turn_started` that leaves the status as it was (a busy agent's queued prompt).
    provider_event_listeners: set[ProviderEventListener] = field(default_factory=set)
    # Serializes lifecycle operations on this agent.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # What its terminal shows, replayed from `buffer` when asked (`agent screen`).
    screen: LazyScreen = field(init=False)
    # Who views it through `agent attach` at what size, and the size its PTY takes for them.
    viewers: ViewerSizes = field(default_factory=ViewerSizes)
    # Its process's controlling terminal as a caller's look-up last read it, under the key of that
    # process ((pid, stored process identity)): read once per process, not once per request.
    seen_terminal: tuple[tuple[int, str], int | str] | None = None
    # Whether its CLI has Wardian's MCP tools; a first `ready` waits for them (agents/mcp_readiness).
    mcp_tools: McpToolsState = "not_registered"

    def __post_init__(self) -> None:
        self.screen = LazyScreen(self.buffer)
        # A host taking the agent on knows the ended turn from the evidence the last host stored.
        self.turn_end = TurnEnd.from_evidence(self.status_evidence)

    @property
    def uuid(self) -> str:
        return self.row["uuid"]

    @property
    def name(self) -> str:
        return self.row["name"]

    @property
    def status(self) -> Status:
        return self.row["status"]

    @property
    def process_identity(self) -> ProcessIdentity | None:
        """What its latest launch recorded; kept after the exit, for processes it left behind."""
        return ProcessIdentity.from_stored(self.row.get("process_identity"))

    @property
    def is_alive(self) -> bool:
        """Running in our terminal, or `headless`: alive without one."""
        return self.is_running or self.status == "headless"

    def record_output(self, data: bytes) -> None:
        """Keep terminal output in the buffer and show it to whoever watches or attaches."""
        cursor = self.buffer.end_cursor
        self.buffer.append(data)
        for listener in list(self.output_listeners):
            listener(cursor, data)

    def log_event(self, kind: str, fields: dict[str, Any], at: str | None = None) -> dict[str, Any]:
        """Add an event at the current output cursor and show it to whoever follows the agent."""
        entry = {"kind": kind, "cursor": self.buffer.end_cursor, "at": at or now_iso()} | fields
        self.event_log.append(entry)
        for listener in list(self.event_listeners):
            listener(entry)
        return entry

    def snapshot(self) -> dict[str, Any]:
        """The agent as answers show it: its launch token stays in the host."""
        shown = {key: value for key, value in self.row.items() if key != "process_identity"}
        return shown | {"status_evidence": self.status_evidence, "mcp_tools": self.mcp_tools}

    def answer(self) -> AgentSnapshot:
        """`snapshot` as the control wire's answer model."""
        return AgentSnapshot.model_validate(self.snapshot())
