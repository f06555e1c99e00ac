"""Following a server-sent events stream on the loopback interface (a CLI's own event server).

A small HTTP/1.1 client on asyncio streams: the stream is a single long GET, so an HTTP
library would add a dependency for little. The request headers carry credentials: they
are never logged, and a failure is logged by its status line only.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable
from urllib.parse import urlsplit

from wardian_core.parsing.sse import EventParser

log = logging.getLogger(__name__)

MAX_HEADERS = 100
FIRST_RETRY_SECONDS = 0.1
MAX_RETRY_SECONDS = 2.0
# A server starting up may accept the connection and not answer the request at all (OpenCode
# 1.18.33 does, for seconds): a request unanswered this long is dropped and asked again.
ANSWER_TIMEOUT_SECONDS = 5.0
_READ_SIZE = 65536


class SseStream:
    """Calls `on_line(data)` once per event that has data; reconnects until `close()`."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, url: str, headers: dict[str, str], on_line: Callable[[bytes], object]
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError("an sse url must be http://host[:port]/path")
        self._loop = loop
        self._host = parts.hostname
        self._port = parts.port or 80
        self._on_line = on_line
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        fields = {
            "Host": parts.netloc.rpartition("@")[2],
            "Accept": "text/event-stream",
            "Cache-Control": "no-cache",
            **headers,
        }
        for name, value in fields.items():
            if any(character in name + value for character in "\r\n\0"):
                # Not the value: it may be a secret.
                raise ValueError(f"the sse header {name!r} holds a line break or NUL")
        head = [f"GET {target} HTTP/1.1", *(f"{name}: {value}" for name, value in fields.items())]
        try:
            self._request = "".join(line + "\r\n" for line in head).encode("latin-1")
        except UnicodeEncodeError:
            raise ValueError("sse headers must be latin-1 text") from None
        self.last_event_id: bytes | None = None
        self._task: asyncio.Task[None] | None = None
        self._last_complaint: str | None = None

    def start(self) -> None:
        self._task = self._loop.create_task(self._follow())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _follow(self) -> None:
        delay = FIRST_RETRY_SECONDS
        while True:
            writer: asyncio.StreamWriter | None = None
            try:
                reader, writer = await asyncio.open_connection(self._host, self._port)
                body = await asyncio.wait_for(self._open(reader, writer), ANSWER_TIMEOUT_SECONDS)
                if body is not None:
                    delay = FIRST_RETRY_SECONDS
                    await self._read_events(body)
            except (OSError, EOFError, asyncio.LimitOverrunError, ValueError, TimeoutError) as error:
                # The CLI's server may not be up yet: quiet, until it answers something unexpected.
                log.debug("sse stream %s:%s: %s", self._host, self._port, type(error).__name__)
            finally:
                if writer is not None:
                    writer.close()
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_RETRY_SECONDS)

    async def _open(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> AsyncGenerator[bytes, None] | None:
        """Send the request; the body's bytes when the answer is 200, else None."""
        last_id = b"" if self.last_event_id is None else b"Last-Event-ID: " + self.last_event_id + b"\r\n"
        writer.write(self._request + last_id + b"\r\n")
        await writer.drain()
        status_line = (await reader.readuntil(b"\n")).decode("latin-1").strip()
        fields: dict[str, str] = {}
        for _ in range(MAX_HEADERS + 1):
            line = (await reader.readuntil(b"\n")).decode("latin-1").strip()
            if not line:
                break
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        else:
            raise ValueError("too many response headers")
        status = status_line.split(maxsplit=2)
        if len(status) < 2 or status[1] != "200":
            self._complain(status_line[:200])
            return None
        self._last_complaint = None
        if "chunked" in fields.get("transfer-encoding", "").lower():
            return _chunked_body(reader)
        length = fields.get("content-length")
        return _plain_body(reader, int(length) if length is not None else None)

    def _complain(self, status_line: str) -> None:
        # Once per change of answer: a wrong credential would otherwise log every two seconds.
        level = logging.WARNING if status_line != self._last_complaint else logging.DEBUG
        log.log(level, "sse stream %s:%s answered %r; retrying", self._host, self._port, status_line)
        self._last_complaint = status_line

    async def _read_events(self, body: AsyncGenerator[bytes, None]) -> None:
        parser = EventParser(self.last_event_id)
        async with contextlib.aclosing(body):
            async for data in body:
                for event in parser.feed(data):
                    try:
                        self._on_line(event)
                    except Exception:
                        log.exception("handling an sse event from %s:%s failed", self._host, self._port)
                self.last_event_id = parser.last_event_id


async def _chunked_body(reader: asyncio.StreamReader) -> AsyncGenerator[bytes, None]:
    while True:
        remaining = int((await reader.readuntil(b"\n")).split(b";")[0].strip(), 16)
        if remaining == 0:
            return
        while remaining > 0:  # in pieces: a chunk's size is the server's word, not a promise
            data = await reader.read(min(remaining, _READ_SIZE))
            if not data:
                raise asyncio.IncompleteReadError(b"", remaining)
            remaining -= len(data)
            yield data
        if (await reader.readuntil(b"\n")).strip():
            raise ValueError("a chunk is longer than its size says")


async def _plain_body(reader: asyncio.StreamReader, length: int | None) -> AsyncGenerator[bytes, None]:
    """The next `length` bytes (all until the end when None), in pieces."""
    remaining = length
    while remaining is None or remaining > 0:
        data = await reader.read(_READ_SIZE if remaining is None else min(remaining, _READ_SIZE))
        if not data:
            if remaining is not None:
                raise asyncio.IncompleteReadError(b"", remaining)
            return
        if remaining is not None:
            remaining -= len(data)
        yield data
