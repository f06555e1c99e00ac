"""The host's control endpoint: newline-delimited JSON over a Unix socket.

Peers of another uid are refused. Each connection may carry several requests, one
after another; a streaming request sends `stream` frames before its answer. A
malformed frame gets `bad_request`, an unknown kind `not_supported`, and a frame
over MAX_FRAME_BYTES is refused and its connection closed.
"""

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from wardian_core.control import endpoint
from wardian_core.control.deadline import refuse_if_late
from wardian_core.control.models import REQUEST_PARAMS
from wardian_core.control.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    encode,
    error_frame,
    ok_frame,
    stream_frame,
)
from wardian_core.errors import WardianError
from wardian_host.daemon.caller_identity import PeerProcess

log = logging.getLogger(__name__)


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


Handler = Callable[[Any, RequestContext], Awaitable[Any]]


def _error(code: str, message: str, hint: str | None = None, details: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = WardianError(code, message, hint, details).envelope()["error"]
    return error


class ControlServer:
    def __init__(self, home: Path, handlers: dict[str, Handler]) -> None:
        self.path = endpoint.socket_path(home)
        self._handlers = handlers
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Bind the socket; the caller holds the host lock, so an existing file is stale."""
        endpoint.ensure_private_dir(self.path.parent)
        if self.path.exists() or self.path.is_symlink():
            log.info("replacing stale socket %s", self.path)
            self.path.unlink()
        self._server = await asyncio.start_unix_server(
            self._serve_connection, path=os.fspath(self.path), limit=MAX_FRAME_BYTES + 1
        )
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        pid, uid, _ = endpoint.peer_credentials(writer.get_extra_info("socket"))
        peer = PeerProcess.capture(pid, uid)
        try:
            if uid != os.getuid():
                log.warning("refused a connection from uid %s (pid %s)", uid, pid)
                error = WardianError("unauthorized", f"uid {uid} may not use this host", None)
                writer.write(encode(error_frame(None, error.envelope()["error"])))
                await writer.drain()
                return
            while await self._serve_one(reader, writer, peer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client left, or the host is stopping
        finally:
            peer.close()
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: PeerProcess) -> bool:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return False
        except asyncio.LimitOverrunError:
            limit = f"{MAX_FRAME_BYTES} bytes"
            writer.write(encode(error_frame(None, _error("bad_request", f"frame larger than {limit}"))))
            await writer.drain()
            return False  # the rest of the oversized frame is unreadable: close
        request_id, response = await self._answer(line, RequestContext(peer, 0, reader, writer))
        writer.write(encode(response))
        await writer.drain()
        return True

    async def _answer(self, line: bytes, context: RequestContext) -> tuple[int | None, dict[str, Any]]:
        try:
            frame = json.loads(line)
            if not isinstance(frame, dict):
                raise ValueError("a frame is a JSON object")
        except ValueError as exc:
            return None, error_frame(None, _error("bad_request", f"malformed JSON frame: {exc}"))
        request_id = frame.get("id") if isinstance(frame.get("id"), int) else None
        if frame.get("v") != PROTOCOL_VERSION:
            return request_id, error_frame(
                request_id,
                _error(
                    "protocol_mismatch",
                    f"this host speaks control protocol {PROTOCOL_VERSION}, the request uses {frame.get('v')}",
                    "Restart the host so CLI and host run the same Wardian.",
                ),
            )
        kind = frame.get("kind")
        if request_id is None or not isinstance(kind, str) or not isinstance(frame.get("params", {}), dict):
            return request_id, error_frame(request_id, _error("bad_request", "a request needs id, kind and params"))
        handler, params_model = self._handlers.get(kind), REQUEST_PARAMS.get(kind)
        if handler is None or params_model is None:
            return request_id, error_frame(
                request_id,
                _error("not_supported", f"unknown request kind {kind!r}", "Upgrade the CLI or the host."),
            )
        context.request_id = request_id
        try:
            refuse_if_late(kind, frame.get("deadline"))
            params = params_model.model_validate(frame.get("params", {}))
            return request_id, ok_frame(request_id, await handler(params, context))
        except ValidationError as exc:
            details = {"errors": json.loads(exc.json(include_url=False))}
            return request_id, error_frame(
                request_id, _error("bad_request", f"invalid {kind} parameters", None, details)
            )
        except WardianError as error:
            return request_id, error_frame(request_id, error.envelope()["error"])
        except Exception as exc:  # a bug in one request must not take the host down
            log.exception("request %s failed", kind)
            return request_id, error_frame(request_id, _error("request_failed", f"{kind} failed: {exc}"))
