"""A message read from where the user points (a file, standard input, a FIFO, a device), never
more of it than a request can carry.

`/dev/zero`, `yes |` or a FIFO that is never closed end nowhere: read whole, they grow the
reader until the kernel kills it. So at most one byte past the limit is read, and that byte
is the refusal. The CLI's `--stdin` and `--file` and the MCP tools' `file` read through here.
"""

from typing import BinaryIO

from wardian_core.control.protocol import MAX_FRAME_BYTES
from wardian_core.errors import WardianError

# The text of one message can at most fill one request: the frame adds its own few bytes, so a
# text just under this is still refused as `message_too_large`, by the client, before sending.
MESSAGE_MAX_BYTES = MAX_FRAME_BYTES
CHUNK_BYTES = 1 << 20


def read_bounded(handle: BinaryIO, source: str, limit: int = MESSAGE_MAX_BYTES) -> bytes:
    """All of `handle` up to `limit` bytes; one byte more is `message_too_large`, read no further."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = handle.read(min(CHUNK_BYTES, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    raise message_over_limit(source, limit)


def check_message_size(data: bytes, source: str, limit: int = MESSAGE_MAX_BYTES) -> bytes:
    """`data` (a message already in memory, such as an argument) when it is within the limit."""
    if len(data) > limit:
        raise message_over_limit(source, limit)
    return data


def message_over_limit(source: str, limit: int) -> WardianError:
    return WardianError(
        "message_too_large",
        f"the message from {source} is over {limit} bytes ({limit / (1 << 20):g} MiB), the most a request carries; "
        "reading stopped there",
        "Nothing was sent. Send a shorter text, split it into several sends, or point --file / --stdin "
        "at something that ends (not a device or an endless pipe).",
        {"source": source, "limit_bytes": limit, "size_bytes_at_least": limit + 1},
    )
