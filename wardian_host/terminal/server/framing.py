"""Reading one frame of the terminal wire (`wardian_core.terminal_wire`) from a stream."""

import asyncio
from typing import TypeVar

from pydantic import TypeAdapter

from wardian_core import terminal_wire as wire

Frame = TypeVar("Frame")


async def read_frame(reader: asyncio.StreamReader, frames: TypeAdapter[Frame]) -> tuple[Frame, bytes]:
    """The next frame, validated by `frames`, and its payload; IncompleteReadError at the end."""
    header_size, payload_size = wire.check_prefix(await reader.readexactly(wire.PREFIX.size))
    header = await reader.readexactly(header_size)
    payload = await reader.readexactly(payload_size) if payload_size else b""
    return frames.validate_json(header), payload
