"""Reading frames of the terminal wire (`wardian_core.terminal_wire`) from a stream.

`read_frame` reads one: `decode` turns its header into a frame (`decode_server` on the host,
`decode_client` on the server). `FrameSplitter` cuts whole frames out of what a stream read brought, for a reader
that takes many at a time (the host, from a server gathering busy agents' output).
"""

import asyncio
from collections.abc import Callable
from typing import TypeVar

from wardian_core import terminal_wire as wire

Frame = TypeVar("Frame")


async def read_frame(reader: asyncio.StreamReader, decode: Callable[[bytes], Frame]) -> tuple[Frame, bytes]:
    """The next frame, as `decode` reads its header, and its payload; IncompleteReadError at the end."""
    header_size, payload_size = wire.check_prefix(await reader.readexactly(wire.PREFIX.size))
    header = await reader.readexactly(header_size)
    payload = await reader.readexactly(payload_size) if payload_size else b""
    return decode(header), payload


class FrameSplitter:
    """Whole frames, as (header, payload), out of a stream fed in pieces of any size."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """The frames `data` completes, in order; FrameTooLarge for a prefix over the limits."""
        pending = self._pending
        pending += data
        whole, at = [], 0
        while len(pending) - at >= wire.PREFIX.size:
            header_size, payload_size = wire.check_prefix(pending, at)
            header_at = at + wire.PREFIX.size
            end = header_at + header_size + payload_size
            if end > len(pending):
                break
            payload_at = header_at + header_size
            whole.append((bytes(pending[header_at:payload_at]), bytes(pending[payload_at:end])))
            at = end
        del pending[:at]
        return whole

    @property
    def pending(self) -> int:
        """Bytes of a frame not yet whole."""
        return len(self._pending)
