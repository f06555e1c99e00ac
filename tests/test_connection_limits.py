"""The control server's bounds, on a server in this process with small limits: how many
connections, how many bytes of unfinished frames, how long idle or half-sent."""

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from wardian_core.control import client
from wardian_core.control.models import NoParams
from wardian_host.daemon import connection_limits
from wardian_host.daemon.control_server import ControlServer, RequestContext, Route

STATUS = b'{"v": 2, "id": 1, "kind": "host.status", "params": {}}\n'
HELD = b'{"v": 2, "id": 1, "kind": "test.held", "params": {}}\n'


async def _status(_: NoParams, __: RequestContext) -> dict[str, Any]:
    return {"up": True}


class HeldRequests:
    """A request kind answered only once the test lets it go (a `watch --follow`, an attach)."""

    def __init__(self) -> None:
        self.under_way = 0
        self.release = asyncio.Event()

    async def handle(self, _: NoParams, __: RequestContext) -> dict[str, Any]:
        self.under_way += 1
        await self.release.wait()
        return {"held": True}


Scenario = Callable[[ControlServer], Awaitable[Any]]


def _with_server(home: Path, scenario: Scenario, held: HeldRequests | None = None) -> Any:
    async def run() -> Any:
        routes = {"host.status": Route(NoParams, _status)}
        if held is not None:
            routes["test.held"] = Route(NoParams, held.handle)
        server = ControlServer(home, routes)
        await server.start()
        try:
            return await asyncio.wait_for(scenario(server), 30)
        finally:
            await server.close()

    return asyncio.run(run())


async def _connect(server: ControlServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(str(server.path))


async def _ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, line: bytes = STATUS) -> dict:
    writer.write(line)
    await writer.drain()
    return json.loads(await reader.readline())


async def _idle_connections(
    server: ControlServer, count: int
) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """`count` connections, each admitted and served once, then idle."""
    held = [await _connect(server) for _ in range(count)]
    for reader, writer in held:
        assert (await _ask(reader, writer))["ok"]
    return held


async def _closed(reader: asyncio.StreamReader) -> bool:
    try:
        return await reader.read() == b""
    except ConnectionResetError:
        return True


async def _until(condition: Callable[[], bool]) -> None:
    """The server runs in this loop: give it turns until `condition` holds."""
    # The server has no event for these states: polling gives it turns in this loop.
    while not condition():  # noqa: ASYNC110
        await asyncio.sleep(0.01)


def test_at_the_connection_limit_the_longest_idle_connection_makes_room(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 3)

    async def scenario(server: ControlServer) -> None:
        held = await _idle_connections(server, 3)
        reader, writer = await _connect(server)
        assert (await _ask(reader, writer))["result"] == {"up": True}
        assert await _closed(held[0][0])  # the oldest idle one went
        assert (await _ask(*held[1]))["ok"] and (await _ask(*held[2]))["ok"]
        for _, other in [*held, (reader, writer)]:
            other.close()

    _with_server(wardian_home, scenario)


def test_at_the_connection_limit_a_connection_whose_request_arrived_unread_is_not_idle(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 3)

    async def scenario(server: ControlServer) -> None:
        held = await _idle_connections(server, 3)
        await _until(lambda: len(server._limits.idle) == 3)
        for _, writer in held:
            writer.write(STATUS)  # sent at once into the socket; the loop has not run since
        assert not server._limits.admit(), "a connection with a request sent was closed as idle"
        for reader, writer in held:
            assert json.loads(await reader.readline())["result"] == {"up": True}
            writer.close()

    _with_server(wardian_home, scenario)


def test_bytes_in_the_readers_own_buffer_count_as_an_arrived_request() -> None:
    async def check() -> list[bool]:
        ours, theirs = socket.socketpair()
        with ours, theirs:
            reader = asyncio.StreamReader()
            frames = connection_limits.FrameReader(reader, connection_limits.ConnectionLimits(), ours.fileno())
            seen = [frames.request_arrived()]
            reader.feed_data(b"{")  # as the transport does before the awaiting read resumes
            seen.append(frames.request_arrived())
            await reader.readexactly(1)
            theirs.sendall(b"{")  # still in the kernel's buffer
            seen.append(frames.request_arrived())
            return seen

    assert asyncio.run(check()) == [False, True, True]


def test_at_the_connection_limit_the_oldest_half_sent_connection_makes_room(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 3)

    async def scenario(server: ControlServer) -> None:
        held = [await _connect(server) for _ in range(3)]
        for _, writer in held:
            writer.write(b'{"v": 2, ')  # a frame under way: not idle
        await _until(lambda: len(server._limits.half_sent) == 3)
        reader, writer = await _connect(server)
        assert (await _ask(reader, writer))["result"] == {"up": True}
        closed = json.loads(await held[0][0].readline())  # the frame begun first went
        assert closed["error"]["code"] == "host_busy" and "make room" in closed["error"]["message"]
        assert await _closed(held[0][0])
        for other_reader, other in held[1:]:  # the others finish their frames and are answered
            other.write(b'"id": 1, "kind": "host.status", "params": {}}\n')
            assert json.loads(await other_reader.readline())["ok"]
        for _, other in [*held, (reader, writer)]:
            other.close()

    _with_server(wardian_home, scenario)


def test_at_the_connection_limit_a_half_sent_frame_whose_end_arrived_is_not_closed(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 3)

    async def scenario(server: ControlServer) -> None:
        held = [await _connect(server) for _ in range(3)]
        for _, writer in held:
            writer.write(b'{"v": 2, ')
        await _until(lambda: len(server._limits.half_sent) == 3)
        for _, writer in held:
            writer.write(b'"id": 1, "kind": "host.status", "params": {}}\n')  # the loop has not run since
        assert not server._limits.admit(), "a connection whose frame had arrived whole was closed"
        for reader, writer in held:
            assert json.loads(await reader.readline())["result"] == {"up": True}
            writer.close()

    _with_server(wardian_home, scenario)


def test_at_the_connection_limit_with_every_connection_busy_a_new_one_gets_host_busy(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 3)
    held_requests = HeldRequests()

    async def scenario(server: ControlServer) -> None:
        held = [await _connect(server) for _ in range(3)]
        for _, writer in held:
            writer.write(HELD)  # a request being served: busy, neither idle nor half-sent
        await _until(lambda: held_requests.under_way == 3)
        reader, writer = await _connect(server)
        refused = json.loads(await reader.readline())
        assert refused["error"]["code"] == "host_busy" and refused["id"] is None
        assert "maximum of connections" in refused["error"]["message"] and refused["error"]["hint"]
        assert await _closed(reader)
        held_requests.release.set()
        for held_reader, _ in held:
            assert json.loads(await held_reader.readline())["result"] == {"held": True}
        held[0][1].close()
        await _until(lambda: server._limits.connections < 3)
        reader, writer = await _connect(server)
        assert (await _ask(reader, writer))["result"] == {"up": True}
        for _, other in [*held, (reader, writer)]:
            other.close()

    _with_server(wardian_home, scenario, held_requests)


def test_a_flood_of_connections_sending_a_byte_at_a_time_leaves_room_for_a_request(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_limits, "MAX_CONNECTIONS", 20)

    async def trickle(server: ControlServer) -> None:
        """A slow-loris client: one connection after another, each sending its frame a byte at a time."""
        while True:
            _, writer = await _connect(server)
            try:
                for byte in b'{"v": 2, "id": 1, "kind": "host.status", "pad": "' + b"x" * 10_000:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(0.01)
            except ConnectionError:
                pass  # closed for another connection, or for its frame's deadline
            finally:
                writer.close()

    async def scenario(server: ControlServer) -> None:
        flood = [asyncio.ensure_future(trickle(server)) for _ in range(60)]
        try:
            await _until(lambda: server._limits.connections >= 20)  # at the limit, every one half-sent or about to be
            for _ in range(5):  # as `wardian host status` asks: a fresh connection, retried on host_busy
                assert await asyncio.to_thread(client.request, wardian_home, "host.status") == {"up": True}
        finally:
            for task in flood:
                task.cancel()
            await asyncio.gather(*flood, return_exceptions=True)

    _with_server(wardian_home, scenario)


def test_unfinished_frames_share_one_budget_and_release_it(wardian_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection_limits, "MAX_UNFINISHED_FRAME_BYTES", 300 * 1024)

    async def scenario(server: ControlServer) -> None:
        limits = server._limits
        first_reader, first = await _connect(server)
        first.write(b'{"v": 2, "id": 1, "kind": "host.status", "params": {}, "pad": "' + b"x" * 250 * 1024)
        await _until(lambda: limits.unfinished_bytes >= 150 * 1024)  # gathered beyond asyncio's reader
        second_reader, second = await _connect(server)
        second.write(b'{"pad": "' + b"y" * 200 * 1024 + b'"}\n')
        refused = json.loads(await second_reader.readline())
        assert refused["error"]["code"] == "host_busy" and "unfinished" in refused["error"]["message"]
        assert await _closed(second_reader)
        first.write(b'"}\n')  # the first frame completes within the budget and is answered
        answer = json.loads(await first_reader.readline())
        assert answer["ok"] and answer["id"] == 1
        assert limits.unfinished_bytes == 0
        first.close()
        await _until(lambda: limits.connections == 0)

    _with_server(wardian_home, scenario)


def test_an_idle_connection_is_closed(wardian_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection_limits, "IDLE_SECONDS", 0.2)

    async def scenario(server: ControlServer) -> None:
        reader, writer = await _connect(server)
        assert (await _ask(reader, writer))["ok"]
        assert await _closed(reader)  # nothing sent after the answer
        await _until(lambda: server._limits.connections == 0)
        writer.close()

    _with_server(wardian_home, scenario)


@pytest.mark.parametrize("size", [20, 200 * 1024], ids=["small", "beyond-the-reader"])
def test_a_half_sent_frame_is_refused_and_closed_and_holds_nothing(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(connection_limits, "FRAME_SECONDS", 0.2)

    async def scenario(server: ControlServer) -> None:
        reader, writer = await _connect(server)
        writer.write(b"{" + b" " * size)
        refused = json.loads(await reader.readline())
        assert refused["error"]["code"] == "bad_request" and "not complete" in refused["error"]["message"]
        assert await _closed(reader)
        await _until(lambda: server._limits.connections == 0)
        assert server._limits.unfinished_bytes == 0
        writer.close()

    _with_server(wardian_home, scenario)


def test_a_frame_cut_by_the_end_of_stream_is_refused(wardian_home: Path) -> None:
    async def scenario(server: ControlServer) -> None:
        reader, writer = await _connect(server)
        writer.write(STATUS + b'{"v": 2, "id": 2')
        writer.write_eof()
        assert json.loads(await reader.readline())["ok"]  # the whole frame before it is served
        refused = json.loads(await reader.readline())
        assert refused["error"]["code"] == "bad_request" and "16 bytes into it" in refused["error"]["message"]
        writer.close()

    _with_server(wardian_home, scenario)


def test_an_oversized_frame_is_message_too_large_and_releases_its_bytes(wardian_home: Path) -> None:
    from wardian_core.control.protocol import MAX_FRAME_BYTES

    async def scenario(server: ControlServer) -> None:
        reader, writer = await _connect(server)
        writer.write(b'{"pad": "' + b"x" * MAX_FRAME_BYTES + b'"}\n')
        refused = json.loads(await reader.readline())
        assert refused["error"]["code"] == "message_too_large" and refused["error"]["hint"]
        assert refused["error"]["details"]["size_bytes"] > MAX_FRAME_BYTES
        assert await _closed(reader)
        await _until(lambda: server._limits.connections == 0)
        assert server._limits.unfinished_bytes == 0
        writer.close()

    _with_server(wardian_home, scenario)
