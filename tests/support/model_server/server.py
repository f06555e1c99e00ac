"""The fake model API: an HTTP server on 127.0.0.1 (OS-chosen port) running in a thread."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from . import anthropic, gemini, openai_chat, openai_responses
from .directives import answer_delay, answer_hold
from .wire import HttpReply, RecordedRequest, json_reply

# The longest a MOCK_HOLD answer waits for its release.
HOLD_LIMIT_SECONDS = 180.0

_GEMINI_ROUTE = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<method>\w+)$")


def route(method: str, path: str, body: Any) -> HttpReply:
    """Pick the protocol by path, the way each CLI addresses its vendor's API."""
    route_path = urlsplit(path).path.rstrip("/") or "/"
    if method in ("HEAD", "GET") and route_path == "/":
        # Claude Code probes the base URL with `HEAD /` before its first call.
        return HttpReply(200, "text/plain", b"")
    if method == "GET" and route_path.endswith("/models"):
        return json_reply({"object": "list", "data": [], "models": []})
    if method != "POST":
        return json_reply({"error": {"message": f"mock server: no {method} {route_path}"}}, 404)
    if route_path.endswith("/messages/count_tokens"):
        return anthropic.count_tokens(body)
    if route_path.endswith("/messages"):
        return anthropic.messages(body)
    if route_path.endswith("/responses"):
        return openai_responses.responses(body)
    if route_path.endswith("/chat/completions"):
        return openai_chat.chat_completions(body)
    match = _GEMINI_ROUTE.match(route_path)
    if match and match["method"] in ("generateContent", "streamGenerateContent"):
        return gemini.generate_content(body, match["model"], stream=match["method"] == "streamGenerateContent")
    if match and match["method"] == "countTokens":
        return gemini.count_tokens(body)
    return json_reply({"error": {"message": f"mock server: no route for POST {route_path}"}}, 404)


class ModelServer:
    """Start with `with ModelServer() as server:`; `server.requests` is the log of every call."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._requests: list[RecordedRequest] = []
        self._changed = threading.Condition()
        self._released: set[str] = set()
        self._httpd = ThreadingHTTPServer((host, 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="model-server", daemon=True
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._changed:
            return list(self._requests)

    def model_requests(self) -> list[RecordedRequest]:
        """The calls a fake model answered (text, tool call, error or schema object)."""
        return [request for request in self.requests if request.reply_kind]

    def start(self) -> ModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def record(self, request: RecordedRequest) -> None:
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()

    def answered(self, request: RecordedRequest, at: float) -> None:
        """Stamp `request` (as recorded) with when its answer was written whole."""
        with self._changed:
            index = next(i for i, kept in enumerate(self._requests) if kept is request)
            self._requests[index] = dataclasses.replace(request, answered_at=at)
            self._changed.notify_all()

    def release(self, hold: str) -> None:
        """Let the answers held by `MOCK_HOLD:<hold>` go out, now and from now on."""
        with self._changed:
            self._released.add(hold)
            self._changed.notify_all()

    def held(self, raw_body: bytes, timeout: float = HOLD_LIMIT_SECONDS) -> None:
        """Block until the request's MOCK_HOLD gate is released; bounded, so a test that never
        releases fails on its own wait rather than leaving a thread behind."""
        hold = answer_hold(raw_body)
        if hold is None:
            return
        with self._changed:
            self._changed.wait_for(lambda: hold in self._released, timeout)

    def wait_for(
        self, predicate: Callable[[RecordedRequest], bool], timeout: float, count: int = 1
    ) -> list[RecordedRequest]:
        """Block until `count` recorded requests satisfy `predicate`; raise TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                matching = [request for request in self._requests if predicate(request)]
                if len(matching) >= count:
                    return matching
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(
                        f"model server: {len(matching)} of {count} expected requests "
                        f"after {timeout} s; log: {[r.path for r in self._requests]}"
                    )
                self._changed.wait(remaining)


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.1 keeps the clients' connections alive between turns, as real APIs do.
        protocol_version = "HTTP/1.1"
        server_version = "mockllm/1.0"

        def do_HEAD(self) -> None:
            self._serve(send_body=False)

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self, send_body: bool = True) -> None:
            raw = self._read_body()
            received_at = time.monotonic()
            try:
                body = json.loads(raw) if raw else {}
                reply = route(self.command, self.path, body)
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                reply = json_reply({"error": {"message": f"mock server could not handle request: {error!r}"}}, 500)
            # Recorded before the answer goes out, as a client that reads its answer may look at
            # the log at once; when the answer was written whole is filled in after.
            recorded = RecordedRequest(
                self.command, self.path, dict(self.headers.items()), raw, reply.status, reply.kind, received_at
            )
            server.record(recorded)
            if reply.kind:
                server.held(raw)  # MOCK_HOLD: a turn kept open until the test lets it end
                time.sleep(answer_delay(raw))  # MOCK_DELAY_MS: a model that takes its time
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if send_body:
                    self.wfile.write(reply.body)
                self.wfile.flush()
            finally:  # written whole, or the client left
                server.answered(recorded, time.monotonic())

        def _read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                raw = self._read_chunked()
            else:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                raw = gzip.decompress(raw)
            return raw

        def _read_chunked(self) -> bytes:
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()

        def log_message(self, format: str, *args: Any) -> None:
            # The request log is the record; stderr noise would bury test output.
            pass

    return Handler
