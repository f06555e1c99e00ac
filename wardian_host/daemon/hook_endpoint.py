"""The host's loopback listener for CLI hooks sent over HTTP (wardian_core.hook_endpoint).

`POST /hooks/<agent uuid>/<file in the agent's folder>` with `Authorization: Bearer <token>`:
the payload is appended to that file as the command recorder would append it, one compact
JSON line in one write, so the follower that tails the file feeds it to the parser as before.
The answer is `{}` at once (the CLI waits for it). A tiny HTTP/1.1 server on asyncio streams:
one request at a time per connection, kept alive, bodies by Content-Length only.
"""

import asyncio
import contextlib
import logging
import os
import re
from pathlib import Path

from wardian_core import hook_endpoint, paths
from wardian_core.hook_recorder import hook_line

log = logging.getLogger(__name__)

# A hook payload is a few KB (a tool's input and output); anything far larger is refused.
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_HEAD_BYTES = 16 * 1024
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_FILE_PART = re.compile(r"[A-Za-z0-9_.-]+")
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}
REASONS |= {411: "Length Required", 413: "Content Too Large"}


class BadRequest(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _file_of(home: Path, target: str) -> tuple[str, Path]:
    """(agent uuid, the file) a request path names; BadRequest(404) for anything else, so a
    caller never names a file outside its agent's folder (no `..`, no absolute part)."""
    agent_uuid, _, relative = target.removeprefix(hook_endpoint.ROUTE).partition("/")
    parts = relative.split("/")
    if not target.startswith(hook_endpoint.ROUTE) or not _UUID.fullmatch(agent_uuid):
        raise BadRequest(404)
    if not all(_FILE_PART.fullmatch(part) and part not in (".", "..") for part in parts):
        raise BadRequest(404)
    return agent_uuid, paths.agent_dir(home, agent_uuid).joinpath(*parts)


def append(path: Path, line: bytes) -> None:
    """One write with O_APPEND (lines of hooks that run at once never interleave); the file must
    exist (the provider made it when it prepared the launch) and never be a planted link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        raise BadRequest(404) from None
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    """(method, target, headers, body) of the next request; None when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError:
        raise BadRequest(413) from None
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    method, target, _version = ([*request_line.split(" "), "", ""])[:3]
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise BadRequest(411)
    length = headers.get("content-length", "0")
    if not length.isdigit():
        raise BadRequest(411)
    if int(length) > MAX_BODY_BYTES:
        raise BadRequest(413)
    return method, target, headers, await reader.readexactly(int(length))


def _response(status: int, close: bool) -> bytes:
    body = b"{}" if status == 200 else b'{"error":"' + REASONS[status].encode() + b'"}'
    head = f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body


class HookEndpoint:
    """Serves a home's HTTP hooks while the host runs; `port` once started."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._secret = b""
        self._server: asyncio.Server | None = None
        # Each open connection's writer and its handler: closed and awaited when the host stops.
        self._open: dict[asyncio.StreamWriter, asyncio.Task[None]] = {}
        self.port: int | None = None

    async def start(self) -> None:
        self._secret = hook_endpoint.home_secret(self.home)
        self._server = await self._listen(hook_endpoint.recorded_port(self.home))
        self.port = self._server.sockets[0].getsockname()[1]
        hook_endpoint.record_port(self.home, self.port)

    async def _listen(self, port: int | None) -> asyncio.Server:
        """The port the last host recorded, so the agents it launched (adopted now) still reach
        this one; a new port when another program took it meanwhile."""
        if port is not None:
            try:
                return await asyncio.start_server(self._serve, "127.0.0.1", port, limit=MAX_HEAD_BYTES)
            except OSError as exc:
                log.warning(
                    "hook port %d is taken (%s): agents launched before reach no host until relaunched", port, exc
                )
        return await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)

    async def close(self) -> None:
        """Stop listening and end the kept-alive connections: their handlers see the end of the
        stream and return (a cancelled one would be logged as an error by asyncio's streams)."""
        if self._server is None:
            return
        self._server.close()
        handlers = list(self._open.values())
        for writer in list(self._open):
            writer.close()
        await asyncio.gather(*handlers, return_exceptions=True)
        await self._server.wait_closed()

    def accept(self, method: str, target: str, headers: dict[str, str], body: bytes) -> int:
        """Append one hook's payload to the file the request names; the HTTP status."""
        if method != "POST":
            raise BadRequest(405)
        agent_uuid, path = _file_of(self.home, target)
        token = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hook_endpoint.is_agent_token(self._secret, agent_uuid, token):
            raise BadRequest(401)
        append(path, hook_line(body))
        return 200

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        if handler is not None:
            self._open[writer] = handler
        # A client that leaves mid-request (its CLI exited) is no error of the host's.
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            try:
                while (request := await _read_request(reader)) is not None:
                    writer.write(_response(self._answer(*request), close=False))
                    await writer.drain()
            except BadRequest as refused:  # the rest of the stream cannot be trusted to frame requests
                writer.write(_response(refused.status, close=True))
                await writer.drain()
            finally:
                self._open.pop(writer, None)
                writer.close()

    def _answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> int:
        try:
            return self.accept(method, target, headers, body)
        except BadRequest as refused:
            return refused.status
