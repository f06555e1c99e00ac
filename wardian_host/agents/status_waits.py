"""Waiting for an agent's status: one request, woken by the status change itself."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol

from wardian_core.control.answers import AgentSnapshot
from wardian_core.control.models import WaitParams
from wardian_core.errors import WardianError
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent

TERMINAL_STATUSES = ("off", "error")


class StatusMarks(Protocol):
    """Marks in an agent's status history that outlive the host (the registry's)."""

    def status_mark(self, agent: LiveAgent) -> int: ...

    def arrived_since(self, agent: LiveAgent, status: str, mark: int) -> bool: ...


def _exited(agent: LiveAgent, until: str) -> WardianError:
    return WardianError(
        "agent_exited",
        f"agent {agent.name} is {agent.status}, so it will not become {until}",
        f"Look at `wardian agent {agent.name} --fields status,status_evidence`; resume it with "
        f"`wardian agent resume {agent.name}`.",
        {"agent": agent.name, "status": agent.status, "until": until, "status_evidence": agent.status_evidence},
    )


def _timed_out(agent: LiveAgent, until: str, timeout: float | None) -> WardianError:
    details = {"agent": agent.name, "status": agent.status, "until": until, "timeout_seconds": timeout}
    if agent.status == until:
        # Only a wait for a fresh arrival (`--next`, `send --wait-until`) can end so.
        return WardianError(
            "wait_timeout",
            f"agent {agent.name} stayed {until} for {timeout} s: the wait counts a fresh arrival "
            f"(leaving {until} and coming back), and it took no new turn",
            f"Check that it got the work (`wardian agent screen {agent.name}`); `agent wait` without --next "
            "accepts its present status.",
            details,
        )
    return WardianError(
        "wait_timeout",
        f"agent {agent.name} did not become {until} within {timeout} s (it is {agent.status})",
        "Wait longer with --timeout, or look at what it is doing: `wardian agent watch`.",
        details,
    )


async def wait_for_status(
    agent: LiveAgent,
    until: str,
    # The wait's --timeout, whose expiry is answered as a wait_timeout naming the status.
    timeout: float | None,  # noqa: ASYNC109
    next_change: bool,
    listening: Callable[[], Awaitable[None]] | None = None,
) -> AgentSnapshot:
    """Return when `agent` has status `until`: now, unless `next_change` asks for a fresh arrival.
    `listening` runs once the change is listened for (nothing arriving meanwhile is missed)."""
    if agent.status == until and not next_change:
        return agent.answer()
    exited = agent.status in TERMINAL_STATUSES and not (agent.is_running or agent.launching)
    if exited and until not in TERMINAL_STATUSES:
        raise _exited(agent, until)
    arrived: asyncio.Future[AgentSnapshot] = asyncio.get_running_loop().create_future()

    def on_status(changed: LiveAgent, status: str) -> None:
        if arrived.done():
            return
        if status == until:
            arrived.set_result(changed.answer())
        elif status in TERMINAL_STATUSES:
            arrived.set_exception(_exited(changed, until))

    agent.listeners.add(on_status)
    # A wait for `idle` waits on a turn's end: whoever waits has its result.
    turn_wait = agent.turn_waits.waiting() if until == "idle" else contextlib.nullcontext()
    try:
        with turn_wait:
            if listening is not None:
                await listening()
            return await asyncio.wait_for(arrived, timeout)
    except TimeoutError:
        raise _timed_out(agent, until, timeout) from None
    finally:
        agent.listeners.discard(on_status)


# Its expiry is an answer (False): the caller says what did not change.
async def wait_for_change(agent: LiveAgent, changed: Callable[[str], bool], timeout: float) -> bool:  # noqa: ASYNC109
    """Wait until a status change (or a new dialog in the same status) satisfies `changed`;
    False when `timeout` passes first. The caller checks the present state before waiting."""
    done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def on_status(_: LiveAgent, status: str) -> None:
        if changed(status) and not done.done():
            done.set_result(True)

    agent.listeners.add(on_status)
    try:
        return await asyncio.wait_for(done, timeout)
    except TimeoutError:
        return False
    finally:
        agent.listeners.discard(on_status)


async def wait_across_restarts(
    agent: LiveAgent, params: WaitParams, marks: StatusMarks, stream: ClientStream
) -> AgentSnapshot:
    """`agent wait`: a wait for a fresh arrival tells its client where the status history stood
    (`waiting_after`); a client that a host restart cut off asks the next host with that mark
    (`arrived_after`), and an arrival meanwhile ends its wait at once."""
    if not params.next:
        return await wait_for_status(agent, params.until, params.timeout, False)
    if params.arrived_after is not None and marks.arrived_since(agent, params.until, params.arrived_after):
        return agent.answer()
    mark = params.arrived_after if params.arrived_after is not None else marks.status_mark(agent)
    return await wait_for_status(
        agent, params.until, params.timeout, True, lambda: stream.emit({"waiting_after": mark})
    )
