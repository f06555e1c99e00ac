"""Reading one frame of the terminal wire (`wardian_core.terminal_wire`) from a stream.

`decode` turns the header into a frame: the models' `validate_json` on the host, the plain
`terminal_frames.decode_client` on the server (which never imports pydantic).
"""

import asyncio
from collections.abc import Callable
from typing import TypeVar

from wardian_core import terminal_frames as frames

Frame = TypeVar("Frame")


async def read_frame(reader: asyncio.StreamReader, decode: Callable[[bytes], Frame]) -> tuple[Frame, bytes]:
    """The next frame, as `decode` reads its header, and its payload; IncompleteReadError at the end."""
    header_size, payload_size = frames.check_prefix(await reader.readexactly(frames.PREFIX.size))
    header = await reader.readexactly(header_size)
    payload = await reader.readexactly(payload_size) if payload_size else b""
    return decode(header), payload
