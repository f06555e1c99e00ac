"""Several viewers of one agent (`agent attach`, the web view): the size rule and slow viewers."""

import asyncio
import base64
from collections.abc import Callable
from typing import Any

from stand_in_rows import stand_in_row

from wardian_core.control.models import AttachParams
from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS
from wardian_host.agents.attaching import READ_ONLY_FRAME_SECONDS, attach
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.viewer_sizes import ViewerSizes
from wardian_host.output.buffer import OutputBuffer

OWN = (DEFAULT_ROWS, DEFAULT_COLS)


def test_the_pty_takes_the_smallest_rows_and_columns_of_its_sizing_viewers() -> None:
    sizes = ViewerSizes()
    first, second = object(), object()
    assert sizes.chosen() == OWN
    sizes.set(first, (30, 100))
    sizes.set(second, (50, 80))
    assert sizes.chosen() == (30, 80)  # each from a different viewer: both see the whole screen
    sizes.set(first, (60, 200))
    assert sizes.chosen() == (50, 80)  # a viewer that grows no longer holds it small
    sizes.leave(second)
    assert sizes.chosen() == (60, 200)
    sizes.leave(first)
    assert sizes.chosen() == OWN  # the last one left: its own size again


class Viewer:
    """An attach client: what it was sent, and frames to send; `stalled` until `resume()`."""

    def __init__(self, stalled: bool = False) -> None:
        self.reader = asyncio.StreamReader()
        self.items: list[dict[str, Any]] = []
        self._reading = asyncio.Event()
        self._sent = asyncio.Event()
        if not stalled:
            self._reading.set()

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        self._sent.set()
        await self._reading.wait()  # a stalled one: the host's write waits on a socket nobody drains

    def resume(self) -> None:
        self._reading.set()

    def send(self, frame: bytes) -> None:
        self.reader.feed_data(frame + b"\n")

    def output(self) -> bytes:
        return b"".join(base64.b64decode(item["output"]) for item in self.items if "output" in item)

    async def until(self, done: Callable[[], bool]) -> None:
        async with asyncio.timeout(30):  # a guard against a hang, not a measured time
            while not done():
                self._sent.clear()
                await self._sent.wait()


class SizedTerminals:
    """The terminal part as attach sees it: a PTY that keeps running and records its sizes."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []
        self.resized = asyncio.Event()

    async def wait_exit(self, _uuid: str) -> None:
        await asyncio.Event().wait()

    def resize(self, _uuid: str, rows: int, cols: int) -> None:
        self.sizes.append((rows, cols))
        self.resized.set()

    async def next_size(self) -> tuple[int, int]:
        async with asyncio.timeout(30):
            await self.resized.wait()
        self.resized.clear()
        return self.sizes[-1]


def _agent(capacity: int = 1 << 20) -> LiveAgent:
    agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(capacity))
    agent.is_running = True
    return agent


def _attach(agent: LiveAgent, terminals: SizedTerminals, viewer: Viewer, **params: Any) -> "asyncio.Task[Any]":
    answer = attach(agent, terminals, AttachParams(target="a1", **params), viewer)  # type: ignore[arg-type]  # a stand-in terminal part
    return asyncio.ensure_future(answer)


def test_two_viewers_of_different_sizes_share_the_smallest_and_a_detach_restores_the_others() -> None:
    async def scenario() -> None:
        agent, terminals = _agent(), SizedTerminals()
        small, large, tile = Viewer(), Viewer(), Viewer()
        first = _attach(agent, terminals, small, rows=30, cols=100)
        assert await terminals.next_size() == (30, 100)
        second = _attach(agent, terminals, large, rows=50, cols=80)
        assert await terminals.next_size() == (30, 80)
        watching = _attach(agent, terminals, tile, read_only=True, rows=10, cols=10)
        await tile.until(lambda: bool(tile.items))
        tile.send(b'{"resize": [5, 5]}')  # a read-only viewer never sizes it
        large.send(b'{"resize": [50, 90]}')
        assert await terminals.next_size() == (30, 90)
        small.send(b'{"detach": true}')
        assert (await first)["reason"] == "detached"
        assert await terminals.next_size() == (50, 90)
        large.send(b'{"detach": true}')
        await second
        assert await terminals.next_size() == OWN
        tile.send(b'{"detach": true}')
        await watching
        assert terminals.sizes == [(30, 100), (30, 80), (30, 90), (50, 90), OWN]
        assert agent.viewers.applied == OWN

    asyncio.run(scenario())


def test_a_stalled_viewer_holds_back_neither_the_agent_nor_the_other_viewer() -> None:
    async def scenario() -> None:
        agent, terminals = _agent(256 * 1024), SizedTerminals()
        stalled, reading = Viewer(stalled=True), Viewer()
        held = _attach(agent, terminals, stalled, read_only=True)
        going = _attach(agent, terminals, reading, read_only=True)
        await stalled.until(lambda: bool(stalled.items))
        await reading.until(lambda: bool(reading.items))
        written = b"".join(b"%07d\n" % n for n in range(200_000))  # 1.6 MB, six times what is kept
        for start in range(0, len(written), 4096):
            agent.record_output(written[start : start + 4096])  # never waits: the agent is not held
            await asyncio.sleep(0)  # the loop's turn, as between two reads of its PTY
        await reading.until(lambda: reading.output().endswith(written[-8:]))
        assert reading.output() == written  # every byte, in order, nothing lagged
        assert not any("lagged" in item for item in reading.items)
        assert len(stalled.items) == 1  # its one page in flight is all it holds
        stalled.resume()
        await stalled.until(lambda: stalled.output().endswith(written[-8:]))
        lagged = next(item["lagged"] for item in stalled.items if "lagged" in item)
        assert lagged["dropped_bytes"] > len(written) - agent.buffer.capacity  # dropped to recent output
        for viewer in (stalled, reading):
            viewer.send(b'{"detach": true}')
        await asyncio.gather(held, going)
        assert agent.output_listeners == set()

    asyncio.run(scenario())


def test_a_read_only_viewer_is_sent_busy_output_paced_and_every_byte_of_it() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        agent, terminals = _agent(), SizedTerminals()
        typing, tile = Viewer(), Viewer()
        attaches = [_attach(agent, terminals, typing), _attach(agent, terminals, tile, read_only=True)]
        await typing.until(lambda: bool(typing.items))
        await tile.until(lambda: bool(tile.items))
        typed_before, tiled_before, started = len(typing.items), len(tile.items), loop.time()
        written = b"".join(b"line %04d\r\n" % n for n in range(300))
        for start in range(0, len(written), 11):
            agent.record_output(written[start : start + 11])
            await asyncio.sleep(0.001)  # the agent's pace: a line every millisecond or so
        await tile.until(lambda: tile.output() == written)
        await typing.until(lambda: typing.output() == written)
        elapsed = loop.time() - started
        # The typing viewer is sent each piece as it comes; the tile at most once a frame.
        assert len(typing.items) - typed_before > 100
        assert len(tile.items) - tiled_before <= elapsed / READ_ONLY_FRAME_SECONDS + 2
        for viewer in (typing, tile):
            viewer.send(b'{"detach": true}')
        await asyncio.gather(*attaches)

    asyncio.run(scenario())
