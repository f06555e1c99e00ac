"""`wardian agent watch`: an agent's output and status changes since a cursor."""

import asyncio
from typing import Any

from wardian_core.errors import WardianError
from wardian_core.parsing.escapes import strip_ansi
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_waits import wait_for_status


def _render(data: bytes, raw: bool) -> str:
    return data.decode("utf-8", errors="replace") if raw else strip_ansi(data)


def _events_since(agent: LiveAgent, cursor: int) -> list[dict[str, Any]]:
    return [entry for entry in agent.status_log if entry["cursor"] >= cursor]


def _window(agent: LiveAgent, since: int, raw: bool) -> dict[str, Any]:
    data = agent.buffer.read_from(since)
    if data is None:
        raise WardianError(
            "cursor_expired",
            f"cursor {since} is older than the output kept for {agent.name}",
            f"Start again from the oldest cursor kept: --since {agent.buffer.start_cursor}.",
            {"since": since, "oldest_cursor": agent.buffer.start_cursor, "dropped_bytes": agent.buffer.dropped_bytes},
        )
    return {
        "agent": agent.name,
        "output": _render(data, raw),
        "events": _events_since(agent, since),
        "since": since,
        "cursor": agent.buffer.end_cursor,
        "status": agent.status,
    }


async def _output_appears(agent: LiveAgent, text: str, timeout: float | None) -> None:
    """Wait for `text` in output produced after this call (never the echo already there).

    Each chunk is scanned once, with a short tail of the previous one so a match split
    across two reads is still found: the cost does not grow with the buffer.
    """
    found: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    tail = {"text": ""}
    keep = max(len(text) - 1, 0)

    def on_output(_: int, data: bytes) -> None:
        if found.done():
            return
        window = tail["text"] + strip_ansi(data)
        if text in window:
            found.set_result(None)
        tail["text"] = window[-keep:] if keep else ""

    agent.output_listeners.add(on_output)
    try:
        await asyncio.wait_for(found, timeout)
    except TimeoutError:
        raise WardianError(
            "watch_timeout",
            f"{text!r} did not appear in {agent.name}'s output within {timeout} s",
            "Watch longer with --timeout, or read what it printed with `wardian agent watch` alone.",
            {"agent": agent.name, "until": f"output:{text}", "timeout_seconds": timeout},
        ) from None
    finally:
        agent.output_listeners.discard(on_output)


async def watch(agent: LiveAgent, params: Any, request: ClientStream) -> dict[str, Any]:
    since = agent.buffer.start_cursor if params.since is None else params.since
    _window(agent, since, params.raw)  # an expired cursor fails before any waiting
    if params.follow:
        return await _follow(agent, since, params, request)
    if params.until_output is not None:
        await _output_appears(agent, params.until_output, params.timeout)
    elif params.until_status is not None:
        try:
            await wait_for_status(agent, params.until_status, params.timeout, False)
        except WardianError as error:
            if error.code == "wait_timeout":
                raise WardianError("watch_timeout", error.message, error.hint, error.details) from None
            raise
    return _window(agent, since, params.raw)


async def _follow(agent: LiveAgent, since: int, params: Any, request: ClientStream) -> dict[str, Any]:
    """Stream output and status changes until the client leaves or the agent stops."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    first = _window(agent, since, params.raw)
    await request.emit({"output": first["output"], "cursor": first["cursor"]})

    def on_output(cursor: int, data: bytes) -> None:
        queue.put_nowait({"output": _render(data, params.raw), "cursor": cursor + len(data)})

    def on_status(_: LiveAgent, status: str) -> None:
        queue.put_nowait({"event": agent.status_log[-1] if agent.status_log else {"to": status}})

    agent.output_listeners.add(on_output)
    agent.listeners.add(on_status)
    client_gone = asyncio.ensure_future(request.reader.read(1))
    try:
        while True:
            item = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({item, client_gone}, return_when=asyncio.FIRST_COMPLETED)
            if client_gone in done:
                item.cancel()
                break
            await request.emit(item.result())
    finally:
        client_gone.cancel()
        agent.output_listeners.discard(on_output)
        agent.listeners.discard(on_status)
    return {"cursor": agent.buffer.end_cursor}
