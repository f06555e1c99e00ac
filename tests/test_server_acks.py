"""The host's Acks to the terminal server: one per terminal per moment, never ahead, in order.

The server end is a bare socket the test reads frames from, so every frame the host wrote is counted.
"""

import asyncio
import socket

import pytest

from wardian_core import terminal_wire as wire
from wardian_host.terminal import server_client
from wardian_host.terminal.server.framing import read_frame
from wardian_host.terminal.server_client import ServerPtys

WAIT = 20.0
WELCOME = wire.Welcome(
    v=wire.TERMINAL_PROTOCOL_VERSION, pid=1, version="0", started_at="", backend="linux", terminals=[]
)


class _Server:
    """The server's end of the connection: its writer is kept, or collecting it would close it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def next_frame(self) -> wire.ClientFrame:
        async with asyncio.timeout(WAIT):
            frame, _ = await read_frame(self.reader, wire.decode_client)
        return frame


async def _connected() -> tuple[ServerPtys, _Server]:
    host_end, server_end = socket.socketpair()
    reader, writer = await asyncio.open_unix_connection(sock=host_end)
    return ServerPtys(reader, writer, WELCOME), _Server(*await asyncio.open_unix_connection(sock=server_end))


def test_parses_in_one_loop_turn_are_acknowledged_once_per_terminal_at_the_newest_offset() -> None:
    async def scenario() -> None:
        client, server = await _connected()
        for offset in range(1, 101):  # a hundred parses of two agents within one turn
            client.parsed("a", offset)
            client.parsed("b", 2 * offset)
        assert [await server.next_frame(), await server.next_frame()] == [
            wire.Ack(key="a", offset=100),
            wire.Ack(key="b", offset=200),
        ]
        client.write("a", b"x")
        assert await server.next_frame() == wire.Write(key="a")  # no further Ack came before it
        client.parsed("a", 101)  # a later turn: told again
        assert await server.next_frame() == wire.Ack(key="a", offset=101)
        await client.close()

    asyncio.run(scenario())


def test_parses_over_several_loop_turns_are_acknowledged_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    # However slow the turns, all fall in the delay.
    monkeypatch.setattr(server_client, "ACK_DELAY_SECONDS", 60.0, raising=False)

    async def scenario() -> None:
        client, server = await _connected()
        for offset in range(1, 11):  # a busy agent parsed in ten turns of the loop, within the delay
            client.parsed("a", offset)
            await asyncio.sleep(0)
        client.write("a", b"x")  # tells what is held first
        assert await server.next_frame() == wire.Ack(key="a", offset=10), "an Ack was written per turn"
        assert await server.next_frame() == wire.Write(key="a")
        await client.close()

    asyncio.run(scenario())


def test_an_ack_held_for_the_turn_goes_before_any_later_frame() -> None:
    async def scenario() -> None:
        client, server = await _connected()
        client.parsed("a", 7)
        client.resize("a", 30, 100)  # e.g. a release after the last parse must find it acknowledged
        assert await server.next_frame() == wire.Ack(key="a", offset=7)
        assert await server.next_frame() == wire.Resize(key="a", rows=30, cols=100)
        client.parsed("a", 9)
        await client.close()  # a host stopping tells what it parsed
        assert await server.next_frame() == wire.Ack(key="a", offset=9)

    asyncio.run(scenario())


@pytest.mark.parametrize("key", ["0b6f6f7e-4c1e-4a59-9b0e-2d3c1f7a9e11", "a", 'quo"te\\', "é\n☃"])
def test_the_ack_built_without_its_frame_reads_as_that_frame(key: str) -> None:
    encoded = wire.encode_ack(key, 123456789)
    header_size, payload_size = wire.check_prefix(encoded[: wire.PREFIX.size])
    assert payload_size == 0 and len(encoded) == wire.PREFIX.size + header_size
    assert wire.decode_client(encoded[wire.PREFIX.size :]) == wire.Ack(key=key, offset=123456789)
    assert encoded == wire.encode(wire.Ack(key=key, offset=123456789))
