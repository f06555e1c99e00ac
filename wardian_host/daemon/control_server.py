"""The host's control endpoint: newline-delimited JSON over a Unix socket.

Peers of another uid are refused. Each connection may carry several requests, one
after another; a streaming request sends `stream` frames before its answer. A bad
frame gets `bad_request` (naming the field and its problem) and the connection keeps
working; an unknown kind gets `not_supported`. Connections, their unfinished frames
and their idle and half-sent time are bounded (connection_limits), and a new connection
is read unless every other one is busy with a request; a frame over MAX_FRAME_BYTES gets
`message_too_large`, and the connection is closed since the rest of it is unread.
"""

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from wardian_core.control import endpoint, socket_record
from wardian_core.control.deadline import refuse_if_late
from wardian_core.control.frame_checks import (
    bad_request,
    check_values,
    decode_request_line,
    invalid_parameters,
    quoted,
    shortened,
)
from wardian_core.control.protocol import (
    PROTOCOL_VERSION,
    encode,
    error_frame,
    ok_frame,
    stream_frame,
)
from wardian_core.errors import WardianError
from wardian_host.daemon.caller_identity import PeerProcess
from wardian_host.daemon.connection_limits import (
    READER_LIMIT_BYTES,
    ConnectionLimits,
    FrameReader,
    FrameRefused,
    host_busy,
)
from wardian_host.daemon.log_throttle import LogThrottle
from wardian_host.daemon.write_refusals import as_write_failed

log = logging.getLogger(__name__)

# Taken from a CLI of any protocol version: the `wardian host restart` a mismatch's hint names
# must reach the host it is meant to replace (its parameters keep their shape across versions).
ANY_VERSION_KINDS = frozenset({"host.stop"})


class RequestContext:
    """What a handler knows about the request beyond its parameters."""

    def __init__(
        self, peer: PeerProcess, request_id: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.peer = peer
        self.request_id = request_id
        # Streaming handlers (watch --follow, attach) read the client's further frames here.
        self.reader = reader
        self._writer = writer

    async def emit(self, item: dict[str, Any]) -> None:
        self._writer.write(encode(stream_frame(self.request_id, item)))
        await self._writer.drain()


Params = TypeVar("Params", bound=BaseModel)


@dataclass(frozen=True)
class Route(Generic[Params]):
    """A request kind's parameters model and the handler that takes them validated: one pair,
    so mypy checks that the handler reads the fields its model has."""

    params: type[Params]
    handler: Callable[[Params, RequestContext], Awaitable[Any]]

    async def answer(self, kind: str, raw: dict[str, Any], context: RequestContext) -> Any:
        """The handler's answer as the wire's JSON: an answer model (REQUEST_ANSWERS) is dumped
        here, at the door; a route not yet given one answers plain data."""
        try:
            params = self.params.model_validate(raw)
        except ValidationError as exc:
            raise invalid_parameters(kind, exc) from None
        answer = await self.handler(params, context)
        return answer.model_dump(mode="json", by_alias=True) if isinstance(answer, BaseModel) else answer


# Each route's model is its own: the table's type cannot name them all.
Routes = dict[str, Route[Any]]


class BadFrameLog:
    """One short log line for a connection's first bad frame, within the throttle's budget for
    its peer: a fuzzing client must not wipe the log history, and the rest of its frames say
    nothing new."""

    def __init__(self, pid: int, throttle: LogThrottle) -> None:
        self._pid = pid
        self._throttle = throttle
        self._logged = False

    def note(self, error: WardianError) -> None:
        if not self._logged:
            self._logged = True
            self._throttle.log(
                logging.WARNING,
                "bad frame",
                self._pid,
                "pid %s sent a bad frame (%s: %s); its further ones go unlogged",
                self._pid,
                error.code,
                shortened(error.message, 200),
            )


class ControlServer:
    def __init__(self, home: Path, routes: Routes) -> None:
        self.path = endpoint.serving_socket_path(home)
        self._home = home
        self._routes = routes
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._limits = ConnectionLimits()
        self._log = LogThrottle(log)  # a flood of connections logs a bounded number of lines

    async def start(self) -> None:
        """Bind the socket; the caller holds the host lock, so an existing file is stale."""
        endpoint.peer_credential_means()  # a kernel that cannot name a peer fails the start, not each request
        endpoint.ensure_private_dir(self.path.parent)
        if self.path.exists() or self.path.is_symlink():
            log.info("replacing stale socket %s", self.path)
            self.path.unlink()
        self._server = await asyncio.start_unix_server(
            self._serve_connection, path=os.fspath(self.path), limit=READER_LIMIT_BYTES
        )
        os.chmod(self.path, 0o600)
        if self.path != endpoint.primary_socket_path(self._home):
            socket_record.write(self._home, self.path)  # a CLI of another environment finds it there

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        socket_record.forget(self._home)

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = writer.get_extra_info("socket")
        try:
            pid, uid, _ = endpoint.peer_credentials(connection)
        except OSError as exc:  # macOS names a peer's pid only while it is connected
            self._log.log(
                logging.INFO, "peer left", 0, "dropped a control connection whose peer left at once (%s)", exc.strerror
            )
            writer.close()
            return
        if not self._limits.admit():
            await self._refuse(writer, host_busy("it holds its maximum of connections, each busy with a request"))
            return
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        peer = PeerProcess.capture(pid, uid)
        frames = FrameReader(reader, self._limits, connection.fileno())
        try:
            if uid != os.getuid():
                self._log.log(logging.WARNING, "other user", pid, "refused a connection from uid %s (pid %s)", uid, pid)
                await self._refuse(writer, WardianError("unauthorized", f"uid {uid} may not use this host", None))
                return
            bad_frames = BadFrameLog(pid, self._log)
            while await self._serve_one(frames, writer, peer, bad_frames):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client left, or the host is stopping
        # A bug in serving one connection must not reach asyncio's handler, or others; its
        # traceback is logged, within the throttle's budget (the rule does not see through it).
        except Exception:  # noqa: BLE001
            self._log.log(logging.ERROR, "failed", pid, "control connection of pid %s failed", pid, exc_info=True)
        finally:
            frames.release()
            self._limits.leave()
            peer.close()
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _refuse(self, writer: asyncio.StreamWriter, error: WardianError) -> None:
        """Answer `error` to a frame not read (id unknown) and end the connection."""
        with contextlib.suppress(ConnectionError):
            writer.write(encode(error_frame(None, error.envelope()["error"])))
            await writer.drain()
        writer.close()

    async def _serve_one(
        self, frames: FrameReader, writer: asyncio.StreamWriter, peer: PeerProcess, bad_frames: BadFrameLog
    ) -> bool:
        try:
            line = await frames.next_frame()
        except FrameRefused as refused:
            bad_frames.note(refused.error)
            await self._refuse(writer, refused.error)
            return False
        if line is None:
            return False
        try:
            response = await self._answer(line, RequestContext(peer, 0, frames.reader, writer), bad_frames)
        finally:
            frames.release()
        writer.write(encode(response))
        await writer.drain()
        return True

    async def _answer(self, line: bytearray, context: RequestContext, bad_frames: BadFrameLog) -> dict[str, Any]:
        request_id: int | None = None
        try:
            frame = decode_request_line(line)
            request_id = frame["id"] if type(frame.get("id")) is int else None  # not a bool
            check_values(frame)
            return await self._dispatch(frame, request_id, context)
        except WardianError as error:
            if error.code == "bad_request":
                bad_frames.note(error)
            return error_frame(request_id, error.envelope()["error"])

    async def _dispatch(self, frame: dict[str, Any], request_id: int | None, context: RequestContext) -> dict[str, Any]:
        if frame.get("v") != PROTOCOL_VERSION and frame.get("kind") not in ANY_VERSION_KINDS:
            raise WardianError(
                "protocol_mismatch",
                f"this host speaks control protocol {PROTOCOL_VERSION}, the request uses {quoted(frame.get('v'))}",
                "Run `wardian host restart`: its agents go on, and the new host runs this Wardian.",
            )
        kind = frame.get("kind")
        if request_id is None or not isinstance(kind, str) or not isinstance(frame.get("params", {}), dict):
            raise bad_request("a request needs an integer id, a string kind and an object of params")
        context.request_id = request_id
        route = self._routes.get(kind)
        if route is None:
            raise WardianError("not_supported", f"unknown request kind {quoted(kind)}", "Upgrade the CLI or the host.")
        refuse_if_late(kind, frame.get("deadline"))
        try:
            return ok_frame(request_id, await route.answer(kind, frame.get("params", {}), context))
        except WardianError:
            raise
        # A bug in one request must not take the host down; its traceback is logged (throttled).
        except Exception as exc:  # noqa: BLE001
            caller = context.peer.pid  # a client repeating a failing request gets few lines
            if (refused := as_write_failed(exc, self._home)) is not None:
                self._log.log(logging.WARNING, "write failed", caller, "request %s: %s", kind, refused.message)
                raise refused from None
            self._log.log(logging.ERROR, "request failed", caller, "request %s failed", kind, exc_info=True)
            raise WardianError("request_failed", f"{kind} failed: {exc}") from None
