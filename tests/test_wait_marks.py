"""A wait that a host restart cut short, continued by the next host: what arrived or was printed
meanwhile ends it at once (the marks the first host handed out outlive it, in state.db and in
absolute cursors)."""

import asyncio
from pathlib import Path
from typing import Any

from wardian_core import identity
from wardian_core.control.models import WaitParams
from wardian_core.db import open_writer
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.agents.status_waits import wait_across_restarts
from wardian_host.agents.watching import output_appears


class Stream:
    """A client that keeps the stream items it is sent."""

    reader: Any = None

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.told = asyncio.Event()

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        self.told.set()


def test_a_fresh_arrival_after_the_mark_ends_a_continued_wait_though_the_agent_left_it(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="gate")
    registry = AgentRegistry(conn, 1024)
    tracker = StatusTracker(conn, lambda *_: None)
    agent = registry.resolve("gate")
    tracker.set_status(agent, "idle", {"source": "test"})

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        first = Stream()
        params = WaitParams(target="gate", until="idle", next=True, timeout=30)
        cut_short = asyncio.ensure_future(wait_across_restarts(agent, params, registry, first))
        await first.told.wait()
        mark = first.items[0]["waiting_after"]
        cut_short.cancel()  # the host went away; meanwhile the turn ended and another began
        for status in ("processing", "idle", "processing"):
            tracker.set_status(agent, status, {"source": "test"})
        again = params.model_copy(update={"arrived_after": mark})
        continued = await wait_across_restarts(agent, again, registry, Stream())
        # A wait continued from the latest mark waits for an arrival still to come.
        latest, later = Stream(), params.model_copy(update={"arrived_after": registry.status_mark(agent)})
        waiting = asyncio.ensure_future(wait_across_restarts(agent, later, registry, latest))
        await asyncio.sleep(0)
        assert not waiting.done()
        tracker.set_status(agent, "idle", {"source": "test"})
        return continued.wire(), latest.items, (await waiting).wire()

    continued, told_again, arrived = asyncio.run(scenario())
    assert continued["status"] == "processing"  # answered at once: idle arrived after the mark
    assert told_again == [{"waiting_after": registry.status_mark(agent) - 1}]
    assert arrived["status"] == "idle"
    conn.close()


def test_output_printed_before_a_continued_watch_counts_from_the_first_hosts_cursor(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="gate")
    agent = AgentRegistry(conn, 1024).resolve("gate")
    agent.record_output(b"$ make\r\n")

    async def scenario() -> list[int]:
        started: list[int] = []

        async def listening(cursor: int) -> None:
            started.append(cursor)

        first = asyncio.ensure_future(output_appears(agent, "PASSED", 30, None, None, listening))
        await asyncio.sleep(0)
        first.cancel()  # the host went away; the agent printed on meanwhile
        agent.record_output(b"3 PASSED\r\n")
        await output_appears(agent, "PASSED", 30, None, started[0])  # found at once
        return started

    assert asyncio.run(scenario()) == [len(b"$ make\r\n")]
    conn.close()
