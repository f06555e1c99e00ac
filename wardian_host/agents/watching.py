"""`wardian agent watch`: an agent's output and events (status changes, asks) since a cursor."""

import asyncio
import functools
import json
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from wardian_core.control.models import WatchParams
from wardian_core.control.protocol import MAX_FRAME_BYTES
from wardian_core.errors import WardianError
from wardian_core.parsing.escapes import strip_ansi
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.output_cursor import OutputCursor
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.output.token_match import TokenMatcher

# One answer's output: JSON escapes grow it at most sixfold (`\\u001b` for one byte), so
# with its events it stays within the control frame limit; `more` says what is left.
WATCH_PAGE_BYTES = MAX_FRAME_BYTES // 8
WATCH_ANSWER_BUDGET = MAX_FRAME_BYTES * 7 // 8
# Events kept for a follower that is not reading (the agent's own log keeps 256).
EVENT_BACKLOG = 256


def _render(data: bytes, raw: bool) -> str:
    return data.decode("utf-8", errors="replace") if raw else strip_ansi(data)


def _events_between(agent: LiveAgent, since: int, before: int | None) -> list[dict[str, Any]]:
    """Events at `since` or later, and before cursor `before` when a page stops short."""
    return [
        entry for entry in agent.event_log if entry["cursor"] >= since and (before is None or entry["cursor"] < before)
    ]


def _cursor_expired(agent: LiveAgent, since: int) -> WardianError:
    return WardianError(
        "cursor_expired",
        f"cursor {since} is older than the output kept for {agent.name}",
        f"Start again from the oldest cursor kept: --since {agent.buffer.start_cursor}.",
        {"since": since, "oldest_cursor": agent.buffer.start_cursor, "dropped_bytes": agent.buffer.dropped_bytes},
    )


def output_page(agent: LiveAgent, since: int, raw: bool) -> dict[str, Any]:
    """One bounded answer: output from `since`, the cursor it reached, and whether more is kept."""
    data = agent.buffer.read_page(since, WATCH_PAGE_BYTES)
    if data is None:
        raise _cursor_expired(agent, since)
    cursor = min(since, agent.buffer.known_end) + len(data)  # never behind `since` (see OutputCursor)
    more = cursor < agent.buffer.end_cursor
    answer = {
        "agent": agent.name,
        "output": _render(data, raw),
        "events": _events_between(agent, since, cursor if more else None),
        "since": since,
        "cursor": cursor,
        "more": more,
        "status": agent.status,
    }
    return _within_budget(answer)


def _within_budget(answer: dict[str, Any]) -> dict[str, Any]:
    """Drop the oldest events (counted) if, with their evidence, they would outgrow the page."""
    events = answer["events"]
    room = WATCH_ANSWER_BUDGET - len(json.dumps(answer["output"]))
    sizes = [len(json.dumps(entry)) + 2 for entry in events]  # with the separator
    dropped = 0
    while dropped < len(events) and sum(sizes[dropped:]) > room:
        dropped += 1
    if dropped:
        answer["events"] = events[dropped:]
        answer["events_dropped"] = dropped
    return answer


async def output_appears(
    agent: LiveAgent,
    text: str,
    # The watch's --timeout, whose expiry is answered as a watch_timeout naming the text.
    timeout: float | None,  # noqa: ASYNC109
    prompt: str | None = None,
    since: int | None = None,
    listening: Callable[[int], Awaitable[None]] | None = None,
) -> None:
    """Wait for `text` in output produced after this call, or from cursor `since` on (never the
    echo already there, nor, with `prompt`, the terminal's echo of that prompt: see
    TokenMatcher). `listening` is told the cursor it counts from once new output is listened for."""
    found: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    matcher = TokenMatcher(text, prompt)
    # Not `end_cursor`: while a new host refills the buffer from the terminal server's ring,
    # what comes in up to `known_end` is output printed before this call.
    start = agent.buffer.known_end
    if since is not None and since < start:
        start = max(since, agent.buffer.start_cursor)
        if matcher.feed(strip_ansi(agent.buffer.read_from(start) or b"")):
            return

    def on_output(cursor: int, data: bytes) -> None:
        fresh = data[max(start - cursor, 0) :]  # a refilled chunk may begin before `start`
        if not found.done() and fresh and matcher.feed(strip_ansi(fresh)):
            found.set_result(None)

    agent.output_listeners.add(on_output)
    try:
        if listening is not None:
            await listening(start)
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


async def watch(agent: LiveAgent, params: WatchParams, request: ClientStream) -> dict[str, Any]:
    since = agent.buffer.start_cursor if params.since is None else params.since
    if since < agent.buffer.start_cursor:  # an expired cursor fails before any waiting
        raise _cursor_expired(agent, since)
    if params.follow:
        return await _follow(agent, since, params, request)
    if params.until_output is not None:
        # Told where it counts from, a CLI that a host restart cut off asks the next host from there.
        tell = functools.partial(_tell_watching_from, request)
        await output_appears(agent, params.until_output, params.timeout, None, params.output_from, tell)
    elif params.until_status is not None:
        try:
            await wait_for_status(agent, params.until_status, params.timeout, False)
        except WardianError as error:
            if error.code == "wait_timeout":
                raise WardianError("watch_timeout", error.message, error.hint, error.details) from None
            raise
    return output_page(agent, since, params.raw)


async def _tell_watching_from(request: ClientStream, cursor: int) -> None:
    await request.emit({"watching_from": cursor})


class _StatusBacklog:
    """Events a follower has not been sent yet: the newest EVENT_BACKLOG, the rest counted."""

    def __init__(self) -> None:
        self.events: deque[dict[str, Any]] = deque(maxlen=EVENT_BACKLOG)
        self.dropped = 0

    def add(self, entry: dict[str, Any]) -> None:
        if len(self.events) == self.events.maxlen:
            self.dropped += 1
        self.events.append(entry)

    def take_dropped(self) -> int:
        dropped, self.dropped = self.dropped, 0
        return dropped


async def _follow(agent: LiveAgent, since: int, params: WatchParams, request: ClientStream) -> dict[str, Any]:
    """Stream output and events (status changes, asks) until the client leaves.

    Output is read from the agent's buffer at this client's own cursor (`OutputCursor`);
    status changes wait in a short backlog. A client that stopped reading holds no more
    than that: when it falls behind either, it gets one `lagged` item and goes on.
    """
    backlog = _StatusBacklog()
    with OutputCursor(agent, since) as reader:

        def on_event(entry: dict[str, Any]) -> None:
            backlog.add(entry)
            reader.wake()

        agent.event_listeners.add(on_event)
        client_gone = asyncio.ensure_future(request.reader.read(1))
        try:
            await request.emit({"output": _render(reader.read(), params.raw), "cursor": reader.cursor})
            while not client_gone.done():
                item = _next_item(reader, backlog, params.raw)
                if item is None:
                    await reader.wait(client_gone)
                else:
                    await request.emit(item)
        finally:
            client_gone.cancel()
            agent.event_listeners.discard(on_event)
    return {"cursor": agent.buffer.end_cursor}


def _next_item(reader: OutputCursor, backlog: _StatusBacklog, raw: bool) -> dict[str, Any] | None:
    """What a follower is sent next, in cursor order; None when it has everything."""
    lagged = reader.lag()
    if lagged is not None or backlog.dropped:
        lagged = lagged or {"cursor": reader.cursor, "missed_from": reader.cursor, "dropped_bytes": 0}
        return {"lagged": lagged | {"dropped_events": backlog.take_dropped()}}
    next_event = backlog.events[0]["cursor"] if backlog.events else None
    if next_event is not None and next_event <= reader.cursor:
        return {"event": backlog.events.popleft()}
    page = reader.read(next_event)
    return {"output": _render(page, raw), "cursor": reader.cursor} if page else None
