"""What control connections may hold: how many at once, how many bytes of unfinished
frames between them, and for how long a connection may sit idle or half-sent.

A new connection is always read, unless every connection is busy with a request: at the
limit the connection waiting longest is closed for it, idle or part-way through a frame
(a client sending a byte a second holds no place for long, and a request that has just
connected is the newest, so the last to go).

asyncio's reader buffers a connection only up to READER_LIMIT_BYTES; a larger frame is
gathered here, chunk by chunk, against one budget shared by every connection.
"""

import asyncio
import fcntl
import logging
import struct
import termios
from typing import Any

from wardian_core.control.protocol import MAX_FRAME_BYTES, message_too_large
from wardian_core.errors import WardianError

log = logging.getLogger(__name__)

# Each connection holds two descriptors (its socket and a pidfd of its peer): 256 stay
# under half of the usual soft limit of 1024, leaving the rest to agents' terminals and
# state.db. (600 idle connections once made every request time out.) At the limit the
# connection waiting longest, idle or half-sent, is closed for a new one; only when every
# one is busy with a request is it refused.
MAX_CONNECTIONS = 256
# Unfinished frames of all connections together: eight of the largest at once. Without
# it, 80 connections each holding a partial 8 MiB frame cost the host 650 MB.
MAX_UNFINISHED_FRAME_BYTES = 8 * MAX_FRAME_BYTES
# asyncio stops reading a socket once its reader holds twice this, so a connection costs
# at most 128 KiB of buffer outside the budget above. Real frames are well under it.
READER_LIMIT_BYTES = 64 * 1024
# A connection waiting for its next request is closed after this: clients send their
# request as soon as they connect, and an idle connection still holds two descriptors.
IDLE_SECONDS = 60.0
# A frame must be complete this long after its first byte: a client writes it with one
# sendall (8 MiB takes milliseconds), so only a stalled or hostile client is slower. (At
# 30 s, 300 connections sending a byte a second made 3 of 4 `host status` time out.)
FRAME_SECONDS = 5.0


class FrameRefused(Exception):
    """A frame the host will not read to its end: answer `error`, then close."""

    def __init__(self, error: WardianError) -> None:
        super().__init__(error.message)
        self.error = error


def host_busy(why: str) -> WardianError:
    return WardianError(
        "host_busy",
        f"the host did not read this request: {why}",
        "Retry shortly (the wardian CLI does so until WARDIAN_CONTROL_TIMEOUT); if it persists, "
        "look in `wardian host logs` for a client holding many connections.",
        {"max_connections": MAX_CONNECTIONS, "max_unfinished_frame_bytes": MAX_UNFINISHED_FRAME_BYTES},
    )


class ConnectionLimits:
    """The counts every connection draws on: open connections and bytes of unfinished frames."""

    def __init__(self) -> None:
        self.connections = 0
        self.unfinished_bytes = 0
        # Connections waiting for their next request, oldest first, each with its read.
        self.idle: dict[FrameReader, asyncio.Future[bytes]] = {}
        # Connections part-way through a frame, the earliest begun first, each with its gathering.
        self.half_sent: dict[FrameReader, asyncio.Future[bytearray]] = {}
        self._refusing = 0  # connections refused since the limit was reached

    def admit(self) -> bool:
        """Room for one more connection: under the limit, or by closing the one waiting longest,
        idle or half-sent (a client holding many connections must not lock others out)."""
        if self.connections >= MAX_CONNECTIONS and not self._close_longest_waiting():
            if not self._refusing:
                log.warning("at the limit of %d busy control connections: refusing new ones", MAX_CONNECTIONS)
            self._refusing += 1
            return False
        if self._refusing:
            log.warning("accepting control connections again, after refusing %d", self._refusing)
            self._refusing = 0
        self.connections += 1
        return True

    def _close_longest_waiting(self) -> bool:
        # A request that arrived but that the loop has not yet handed to its reader makes a
        # connection busy, not idle (closing it would answer a sent request with EOF); so does
        # the end of a frame that arrived but was not yet gathered.
        waiting: list[tuple[float, FrameReader, asyncio.Future[Any]]] = [
            (reader.waiting_since, reader, read) for reader, read in self.idle.items() if not reader.request_arrived()
        ]
        waiting += [
            (reader.waiting_since, reader, gathering)
            for reader, gathering in self.half_sent.items()
            if not reader.frame_arrived()
        ]
        for _, reader, read in sorted(waiting, key=lambda entry: entry[0]):
            self.idle.pop(reader, None)
            self.half_sent.pop(reader, None)
            if read.cancel():  # else it ended meanwhile: it is not waiting
                log.debug("closing the control connection waiting longest for a new one")
                return True
        return False

    def leave(self) -> None:
        self.connections -= 1

    def hold(self, size: int) -> bool:
        if self.unfinished_bytes + size > MAX_UNFINISHED_FRAME_BYTES:
            return False
        self.unfinished_bytes += size
        return True

    def release(self, size: int) -> None:
        self.unfinished_bytes -= size


class FrameReader:
    """One connection's frames, each read within the limits above."""

    def __init__(self, reader: asyncio.StreamReader, limits: ConnectionLimits, socket_fileno: int) -> None:
        self.reader = reader
        self._limits = limits
        self._socket_fileno = socket_fileno
        self._held = 0  # bytes of the current frame counted against the shared budget
        self.waiting_since = 0.0  # when it began waiting for its next request, or for the rest of its frame

    def request_arrived(self) -> bool:
        """Bytes wait for this connection's reader: in the kernel's socket buffer, or in the
        asyncio reader's own buffer before the read awaiting them has resumed."""
        # StreamReader offers no public look at its buffer; `_buffer` has been stable for years.
        return bool(getattr(self.reader, "_buffer", b"")) or _unread_socket_bytes(self._socket_fileno) > 0

    def frame_arrived(self) -> bool:
        """The current frame's end may have arrived: a newline in the reader's buffer, or bytes
        still in the kernel's (a half-sent frame keeps its bytes in the buffer until its newline)."""
        return b"\n" in getattr(self.reader, "_buffer", b"") or _unread_socket_bytes(self._socket_fileno) > 0

    async def next_frame(self) -> bytearray | None:
        """The next line, newline included; None when the client left or stayed idle.

        Raises FrameRefused for a frame too large, over the shared budget, half-sent for
        too long, or cut off by the client's end of stream.
        """
        first = await self._first_byte()
        if first is None:
            return None
        frame = bytearray(first)
        if first == b"\n":
            return frame  # an empty line: refused as not JSON, like any other
        gathering = asyncio.ensure_future(self._gather(frame))
        self.waiting_since = asyncio.get_running_loop().time()
        self._limits.half_sent[self] = gathering
        try:
            done, _ = await asyncio.wait({gathering}, timeout=FRAME_SECONDS)
        finally:
            self._limits.half_sent.pop(self, None)
            if not gathering.done():
                gathering.cancel()
        if gathering.cancelled():
            raise FrameRefused(host_busy("it was closed, half-sent, to make room for a new connection"))
        if gathering not in done:
            raise FrameRefused(_unfinished(f"it was not complete {FRAME_SECONDS:g} s after it began"))
        return gathering.result()

    async def _first_byte(self) -> bytes | None:
        """The next frame's first byte; None when the client left, stayed idle for
        IDLE_SECONDS, or was closed to make room for another connection."""
        reading = asyncio.ensure_future(self.reader.readexactly(1))
        self.waiting_since = asyncio.get_running_loop().time()
        self._limits.idle[self] = reading
        try:
            done, _ = await asyncio.wait({reading}, timeout=IDLE_SECONDS)
        finally:
            self._limits.idle.pop(self, None)
            if not reading.done():
                reading.cancel()
        if reading not in done or reading.cancelled():
            return None
        try:
            return reading.result()
        except asyncio.IncompleteReadError:
            return None

    async def _gather(self, frame: bytearray) -> bytearray:
        while True:
            try:
                chunk = await self.reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as overrun:
                self._add(frame, await self.reader.readexactly(overrun.consumed))
                continue
            except asyncio.IncompleteReadError as ended:
                size = len(frame) + len(ended.partial)
                raise FrameRefused(_unfinished(f"the client ended the connection {size} bytes into it")) from None
            if self._held:
                self._add(frame, chunk)
            else:
                frame += chunk  # a frame that fits asyncio's reader needs no share of the budget
            return frame

    def _add(self, frame: bytearray, chunk: bytes) -> None:
        if len(frame) + len(chunk) > MAX_FRAME_BYTES:
            raise FrameRefused(message_too_large(len(frame) + len(chunk), at_least=True))
        if not self._limits.hold(len(chunk)):
            raise FrameRefused(host_busy("other connections hold the most the host keeps of unfinished requests"))
        self._held += len(chunk)
        frame += chunk

    def release(self) -> None:
        """The current frame is answered (or refused): its bytes no longer count."""
        self._limits.release(self._held)
        self._held = 0


def _unread_socket_bytes(fileno: int) -> int:
    """Bytes the kernel holds for a socket that nobody has read yet (0 once it is closed)."""
    try:
        return int(struct.unpack("i", fcntl.ioctl(fileno, termios.FIONREAD, b"\0" * 4))[0])
    except OSError:
        return 0


def _unfinished(why: str) -> WardianError:
    return WardianError(
        "bad_request",
        f"a frame was cut short: {why}, with no newline",
        "End each request with a newline and send it whole; the connection was closed.",
    )
