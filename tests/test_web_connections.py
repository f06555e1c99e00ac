"""What web view connections may hold: caps in all and per peer, a deadline for those that never
pass the gate, and accept() errors logged once a minute."""

import asyncio
import logging
import os
import socket

import pytest

from wardian_host.web import connections
from wardian_host.web.connections import AcceptErrorsOncePerMinute, GuardedProtocol, WebConnections
from wardian_host.web.peers import SocketOwner, holder_of, socket_owner


class Recorder(asyncio.Protocol):
    """aiohttp's place: what the guard lets through."""

    def __init__(self, made: list[asyncio.BaseTransport]) -> None:
        self._made = made

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._made.append(transport)


async def _closed(reader: asyncio.StreamReader) -> bool:
    try:
        return await reader.read(1) == b""
    except ConnectionResetError:
        return True


def test_the_socket_of_a_local_connection_names_its_user_and_process() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, peer = server.accept()
    with server, client, accepted:
        owner = socket_owner(peer, accepted.getsockname())
        assert owner is not None and owner.uid == os.getuid()
        assert holder_of(owner) == os.getpid()
        assert socket_owner(("127.0.0.1", 1), accepted.getsockname()) is None


def test_past_a_peers_cap_its_oldest_ungated_connection_makes_room_and_gated_ones_stay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connections, "MAX_PER_PEER", 3)

    async def scenario() -> tuple[list[bool], list[bool], int]:
        guard = WebConnections(lambda peer, local: SocketOwner(1000, 0))
        made: list[asyncio.BaseTransport] = []
        server = await asyncio.get_running_loop().create_server(
            lambda: GuardedProtocol(Recorder(made), guard), "127.0.0.1", 0
        )
        port = server.sockets[0].getsockname()[1]
        clients = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        # The recorder only appends: polled until the server made all three, in this loop.
        while len(made) < 3:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        gated = guard.of(made[1])
        assert gated is not None
        guard.passed(gated)
        clients.append(await asyncio.open_connection("127.0.0.1", port))  # the oldest ungated one goes
        first_closed = [await _closed(clients[0][0])]
        clients.append(await asyncio.open_connection("127.0.0.1", port))  # then the next ungated one
        second = [await _closed(clients[2][0])]
        for connection in list(guard._open.values()):
            guard.passed(connection)
        clients.append(await asyncio.open_connection("127.0.0.1", port))  # every one gated: refused
        refused = [await _closed(clients[-1][0])]
        count = guard.count()
        for _, writer in clients:
            writer.close()
        server.close()
        return first_closed + second, refused, count

    closed, refused, count = asyncio.run(scenario())
    assert closed == [True, True] and refused == [True] and count == 3


def test_a_connection_that_never_passes_the_gate_is_closed_after_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connections, "UNAUTHENTICATED_SECONDS", 0.1)

    async def scenario() -> tuple[bool, int]:
        guard = WebConnections(lambda peer, local: None)
        made: list[asyncio.BaseTransport] = []
        server = await asyncio.get_running_loop().create_server(
            lambda: GuardedProtocol(Recorder(made), guard), "127.0.0.1", 0
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        closed = await _closed(reader)  # nothing sent, nothing gated: the host ends it
        writer.close()
        server.close()
        await asyncio.sleep(0)
        return closed, guard.count()

    assert asyncio.run(scenario()) == (True, 0)


def test_accept_errors_are_logged_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    asyncio_log = logging.getLogger("asyncio")
    throttle = AcceptErrorsOncePerMinute()
    asyncio_log.addFilter(throttle)
    try:
        loop = asyncio.new_event_loop()
        error = OSError(24, "Too many open files")
        for _ in range(50):  # what asyncio's accept loop reports, once a second, while out of descriptors
            loop.call_exception_handler({"message": "socket.accept() out of system resource", "exception": error})
        loop.close()
    finally:
        asyncio_log.removeFilter(throttle)
    assert sum("socket.accept() out of system resource" in record.getMessage() for record in caplog.records) == 1
