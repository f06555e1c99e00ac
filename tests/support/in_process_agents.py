"""Generic agents on an in-process host (the `running_host` fixture): spawned, waited on, asked.

Each helper awaits the host's own function, so a failure's traceback names it.
"""

import asyncio
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from wardian_core.control.models import AskParams, SpawnParams
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_reader
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.testing.in_process import InProcessHost

T = TypeVar("T")

WAIT_SECONDS = 20.0  # a bound for a hang, never reached by a passing test


def spawn(
    host: InProcessHost, workspace: Path, name: str, *command: str, settings: dict[str, str] | None = None
) -> dict[str, Any]:
    """A generic agent `name` running `command` in `workspace` (with the generic provider's
    `settings`): the host's answer to the spawn, as the wire carries it."""
    return host.call(host.host.lifecycle.spawn(spawn_params(workspace, name, *command, settings=settings))).wire()


def spawn_params(workspace: Path, name: str, *command: str, settings: dict[str, str] | None = None) -> SpawnParams:
    """The spawn request of a generic agent `name` running `command` in `workspace`."""
    launch_config = {"extra_args": list(command), "settings": settings or {}}
    return SpawnParams.model_validate(
        {
            "provider": "generic",
            "class": "Coder",
            "workspace": str(workspace),
            "name": name,
            "launch_config": launch_config,
        }
    )


def wait_until(host: InProcessHost, name: str, status: str, next_change: bool = False) -> dict[str, Any]:
    """The agent's snapshot once it is `status` (`next_change`: a fresh arrival)."""
    agent = host.host.registry.resolve(name)
    return host.call(wait_for_status(agent, status, WAIT_SECONDS, next_change)).wire()


def read_state(home: Path, query: Callable[[sqlite3.Connection], T]) -> T:
    """What `query` reads from state.db on a connection of its own: what the host made durable."""
    conn = open_reader(home)
    try:
        return query(conn)
    finally:
        conn.close()


def stored_agents(home: Path) -> dict[str, dict[str, Any]]:
    """The agents' rows as state.db holds them, by uuid."""
    return read_state(home, lambda conn: {row["uuid"]: row for row in agent_rows.list_agents(conn)})


class StayingClient:
    """The asking client of a request made in-process: it stays connected and sends nothing."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()  # never fed: the client never leaves
        self.items: list[dict[str, Any]] = []

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)


def ask(host: InProcessHost, params: AskParams) -> dict[str, Any]:
    """`wardian ask` as a person runs it (no asking agent): the host's answer, as the wire carries it."""

    async def asked() -> dict[str, Any]:
        return (await host.host.desk.ask(params, None, False, StayingClient())).wire()

    return host.call(asked())


async def first_line(fifo: Path) -> str:
    """The first line a process writes to `fifo`, awaited on the host's loop (the host serves meanwhile)."""
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # read-write: opening waits for no writer, no EOF comes
    loop = asyncio.get_running_loop()
    readable: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not readable.done():
            readable.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await asyncio.wait_for(readable, WAIT_SECONDS)
        return os.read(fd, 4096).decode().splitlines()[0]
    finally:
        loop.remove_reader(fd)
        os.close(fd)
