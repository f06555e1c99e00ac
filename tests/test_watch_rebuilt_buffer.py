"""A host that adopts a terminal rebuilds the agent's buffer from the terminal server's ring, a
chunk at a time, after it already serves: a watcher that comes back meanwhile holds a cursor
the buffer has not reached yet. It is a real cursor, not one from the future: the watcher goes
on from it and is never handed the rebuilt bytes it printed already (issue 46 item 4)."""

import asyncio
from typing import Any

from stand_in_rows import stand_in_row

from wardian_core.control.models import WatchParams
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.watching import output_appears, watch
from wardian_host.output.buffer import OutputBuffer

RING = b"".join(b"line-%d\n" % number for number in range(1, 401))


def _adopted_agent(ring_start: int, ring: bytes, capacity: int = 1024 * 1024) -> LiveAgent:
    """An agent as a new host holds it right after adopting a terminal whose ring ends after `ring`."""
    agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(capacity))
    agent.is_running = True
    agent.buffer.skip_to(ring_start, ring_start + len(ring))
    return agent


class Client:
    """A streaming client that reads every item at once."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()
        self.items: list[dict[str, Any]] = []
        self._sent = asyncio.Event()

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        self._sent.set()

    async def until(self, done: Any) -> None:
        async with asyncio.timeout(30):  # a guard against a hang, not a measured time
            while not done():
                self._sent.clear()
                await self._sent.wait()


def test_a_follower_back_before_the_ring_is_replayed_goes_on_from_its_own_cursor() -> None:
    async def scenario() -> None:
        agent = _adopted_agent(1000, RING)
        agent.record_output(RING[:100])  # the replay has begun, far from the follower's cursor
        printed_up_to = 1000 + RING.index(b"line-300\n")
        client = Client()
        params = WatchParams(target="a1", follow=True, since=printed_up_to)
        follow = asyncio.create_task(watch(agent, params, client))
        await client.until(lambda: len(client.items) == 1)
        for start in range(100, len(RING), 64):  # the rest of the ring, in the chunks it comes in
            agent.record_output(RING[start : start + 64])
        agent.record_output(b"line-401\n")  # printed while the new host serves
        await client.until(lambda: client.items[-1].get("cursor") == agent.buffer.end_cursor)
        assert client.items[0] == {"output": "", "cursor": printed_up_to}
        streamed = "".join(item.get("output", "") for item in client.items)
        expected = RING[RING.index(b"line-300\n") :] + b"line-401\n"
        assert streamed == expected.decode()
        client.reader.feed_eof()
        await follow

    asyncio.run(scenario())


def test_a_watch_page_asked_from_a_cursor_not_yet_replayed_keeps_that_cursor() -> None:
    async def scenario() -> dict[str, Any]:
        agent = _adopted_agent(1000, RING)
        agent.record_output(RING[:100])
        return await watch(agent, WatchParams(target="a1", since=1000 + len(RING)), Client())

    page = asyncio.run(scenario())
    assert (page["output"], page["cursor"], page["more"]) == ("", 1000 + len(RING), False)


def test_a_cursor_past_everything_the_agent_wrote_still_reads_nothing_twice() -> None:
    buffer = OutputBuffer(1024)
    buffer.skip_to(10, 20)
    buffer.append(b"x" * 30)
    assert (buffer.end_cursor, buffer.known_end) == (40, 40)


def test_until_output_is_not_met_by_output_printed_before_it_and_refilled_after() -> None:
    async def scenario() -> bool:
        agent = _adopted_agent(0, b"old DONE\n" + RING)
        waiting = asyncio.create_task(output_appears(agent, "DONE", 30))
        await asyncio.sleep(0)  # a loop turn: it listens
        agent.record_output(b"old DONE\n" + RING)  # the ring, refilled once the watch began
        for _ in range(5):  # loop turns: a wait the refill met is done by then
            await asyncio.sleep(0)
        met_by_the_refill = waiting.done()
        agent.record_output(b"new DONE\n")
        await waiting
        return met_by_the_refill

    assert not asyncio.run(scenario())
