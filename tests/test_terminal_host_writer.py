"""What the terminal server writes to its host: busy output gathered, everything else at once."""

import asyncio
import json
from typing import Any

from wardian_core import terminal_wire as wire
from wardian_host.terminal.server.host_writer import FLUSH_BYTES, HostWriter

WINDOW = 0.2  # long enough that "within the window" does not depend on the machine's speed


class _Transport:
    def get_write_buffer_size(self) -> int:
        return 0


class _Socket:
    """Stands in for the host connection's StreamWriter: keeps each write whole."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.wrote = asyncio.Event()
        self.transport = _Transport()
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.wrote.set()


def _frames(write: bytes) -> list[tuple[dict[str, Any], bytes]]:
    """The frames of one write, decoded as the host reads them."""
    found = []
    while write:
        header_size, payload_size = wire.check_prefix(write[: wire.PREFIX.size])
        header_end = wire.PREFIX.size + header_size
        found.append((json.loads(write[wire.PREFIX.size : header_end]), write[header_end : header_end + payload_size]))
        write = write[header_end + payload_size :]
    return found


def _writer() -> tuple[HostWriter, _Socket, list[int]]:
    socket = _Socket()
    checks: list[int] = []
    writer = HostWriter(socket, lambda: checks.append(len(socket.writes)), window=WINDOW)  # type: ignore[arg-type]
    return writer, socket, checks


def test_output_after_a_quiet_window_goes_out_at_the_end_of_its_loop_turn() -> None:
    async def scenario() -> None:
        writer, socket, checks = _writer()
        writer.output("a", 0, b"echo")
        assert socket.writes == []  # not in the middle of the server's loop turn
        await asyncio.sleep(0)
        assert [_frames(write) for write in socket.writes] == [[({"kind": "output", "key": "a", "offset": 0}, b"echo")]]
        assert checks == [1]  # the server looked at the host's backlog after the write

    asyncio.run(scenario())


def test_output_within_the_window_goes_out_in_one_write_a_frame_per_terminal_joined() -> None:
    async def scenario() -> None:
        writer, socket, _ = _writer()
        writer.output("a", 0, b"first")
        await asyncio.sleep(0)
        socket.wrote.clear()
        writer.output("a", 5, b"-one")
        writer.output("b", 100, b"other")
        writer.output("a", 9, b"-two")
        await asyncio.sleep(0.01)
        assert len(socket.writes) == 1  # the rest waits for the window's end
        async with asyncio.timeout(5):
            await socket.wrote.wait()
        assert _frames(socket.writes[1]) == [
            ({"kind": "output", "key": "a", "offset": 5}, b"-one-two"),
            ({"kind": "output", "key": "b", "offset": 100}, b"other"),
        ]

    asyncio.run(scenario())


def test_any_other_frame_goes_out_at_once_behind_the_output_gathered_before_it() -> None:
    async def scenario() -> None:
        writer, socket, _ = _writer()
        writer.output("a", 0, b"x")
        await asyncio.sleep(0)
        writer.output("a", 1, b"last words")
        writer.frame(wire.Exited("a", 3))
        assert [_frames(write) for write in socket.writes[1:]] == [
            [
                ({"kind": "output", "key": "a", "offset": 1}, b"last words"),
                ({"kind": "exited", "key": "a", "exit_code": 3}, b""),
            ]
        ]
        await asyncio.sleep(WINDOW * 1.5)
        assert len(socket.writes) == 2  # nothing was left to go out again

    asyncio.run(scenario())


def test_a_flood_goes_out_a_read_at_a_time_and_never_more_than_a_read_and_the_gathered() -> None:
    async def scenario() -> None:
        writer, socket, _ = _writer()
        writer.output("a", 0, b"x")
        await asyncio.sleep(0)
        writer.output("a", 1, b"y" * 100)
        writer.output("a", 101, b"z" * FLUSH_BYTES)
        # the gathered bytes first, then the read that would take them past the bound: at once
        assert [len(write) for write in socket.writes[1:]] == [
            len(wire.encode(wire.Output("a", 1), b"y" * 100)),
            len(wire.encode(wire.Output("a", 101), b"z" * FLUSH_BYTES)),
        ]

    asyncio.run(scenario())


def test_output_not_following_what_is_gathered_is_never_joined_to_it() -> None:
    async def scenario() -> None:
        writer, socket, _ = _writer()
        writer.output("a", 0, b"x")
        await asyncio.sleep(0)
        writer.output("a", 1, b"one")
        writer.output("a", 50, b"elsewhere")  # a new launch of the same key at another offset
        writer.flush()
        assert [frame for write in socket.writes[1:] for frame in _frames(write)] == [
            ({"kind": "output", "key": "a", "offset": 1}, b"one"),
            ({"kind": "output", "key": "a", "offset": 50}, b"elsewhere"),
        ]

    asyncio.run(scenario())


def test_what_is_gathered_for_a_host_that_went_away_is_dropped() -> None:
    async def scenario() -> None:
        writer, socket, _ = _writer()
        writer.output("a", 0, b"x")
        await asyncio.sleep(0)
        writer.output("a", 1, b"unsent")
        writer.close()
        await asyncio.sleep(WINDOW * 1.5)
        assert len(socket.writes) == 1
        socket.closing = True
        writer.frame(wire.Exited("a", 0))  # a closing connection takes nothing
        assert len(socket.writes) == 1

    asyncio.run(scenario())
