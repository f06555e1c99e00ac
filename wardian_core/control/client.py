"""The CLI's side of the control endpoint: connect, send a request, read the answer.

Plain sockets and json only, so a live `wardian agent list` costs little more than
reading state.db.
"""

import json
import os
import socket
from collections.abc import Generator
from pathlib import Path
from typing import Any

from wardian_core.control import endpoint
from wardian_core.control.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    default_timeout,
    encode,
    request_frame,
)
from wardian_core.errors import WardianError

DEFAULT = -1.0  # "use default_timeout()": None already means "wait for ever"


def app_not_running(home: Path, reason: str) -> WardianError:
    return WardianError(
        "app_not_running",
        f"no Wardian host is running for {home}",
        "Start it with `wardian host start` (or `wardian agent spawn`, which starts it).",
        {"home": str(home), "reason": reason},
    )


def endpoint_timeout(kind: str, timeout: float | None) -> WardianError:
    return WardianError(
        "control_endpoint_timeout",
        f"the host did not answer {kind!r} within {timeout} s",
        "The host may be overloaded or stuck: check `wardian host logs`, or restart it.",
        {"kind": kind, "timeout_seconds": timeout},
    )


class ControlClient:
    def __init__(self, sock: socket.socket, home: Path) -> None:
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._home = home
        self._next_id = 1

    @classmethod
    def connect(cls, home: Path) -> "ControlClient":
        path = endpoint.socket_path(home)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(default_timeout())
        try:
            sock.connect(os.fspath(path))
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError) as exc:
            sock.close()
            raise app_not_running(home, type(exc).__name__) from None
        except OSError as exc:
            sock.close()
            raise app_not_running(home, str(exc)) from None
        try:
            _, server_uid, _ = endpoint.peer_credentials(sock)
            endpoint.check_same_user(server_uid, os.getuid(), "host behind " + os.fspath(path))
        except BaseException:
            sock.close()
            raise
        return cls(sock, home)

    def raw_socket(self) -> socket.socket:
        """The connection itself, for a request that turns it into a terminal stream (attach)."""
        return self._sock

    def close(self) -> None:
        self._reader.close()
        self._sock.close()

    def __enter__(self) -> "ControlClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def wait_closed(self, timeout: float) -> None:
        """Block until the host closes this connection (it does so as it exits)."""
        self._sock.settimeout(timeout)
        try:
            while self._reader.readline(MAX_FRAME_BYTES + 1):
                pass
        except TimeoutError:
            raise endpoint_timeout("host.stop", timeout) from None
        except OSError:
            pass

    def _send(self, kind: str, params: dict[str, Any]) -> int:
        request_id, self._next_id = self._next_id, self._next_id + 1
        try:
            self._sock.sendall(encode(request_frame(request_id, kind, params)))
        except OSError as exc:
            raise app_not_running(self._home, f"connection lost: {exc}") from None
        return request_id

    def _read_frame(self, kind: str, timeout: float | None) -> dict[str, Any]:
        if timeout == DEFAULT:
            timeout = default_timeout()
        self._sock.settimeout(timeout)
        try:
            line = self._reader.readline(MAX_FRAME_BYTES + 1)
        except TimeoutError:
            raise endpoint_timeout(kind, timeout) from None
        except OSError as exc:
            raise app_not_running(self._home, f"connection lost: {exc}") from None
        if not line:
            raise app_not_running(self._home, "the host closed the connection")
        frame: dict[str, Any] = json.loads(line)
        if frame.get("v") != PROTOCOL_VERSION:
            raise WardianError(
                "protocol_mismatch",
                f"the host speaks control protocol {frame.get('v')}, this CLI speaks {PROTOCOL_VERSION}",
                "Restart the host so it runs this Wardian: `wardian host stop && wardian host start`.",
                {"host_protocol": frame.get("v"), "cli_protocol": PROTOCOL_VERSION},
            )
        return frame

    def exchange(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT
    ) -> Generator[dict[str, Any], None, Any]:
        """Send one request; yield its stream items, then return its result (StopIteration.value)."""
        request_id = self._send(kind, params or {})
        while True:
            frame = self._read_frame(kind, timeout)
            if frame.get("id") != request_id and frame.get("id") is not None:
                continue
            if "stream" in frame:
                yield frame["stream"]
                continue
            if frame.get("ok"):
                return frame.get("result")
            raise WardianError.from_envelope({"error": frame.get("error") or {}})

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any:
        exchange = self.exchange(kind, params, timeout)
        while True:
            try:
                next(exchange)
            except StopIteration as done:
                return done.value


def request(home: Path, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any:
    """One request on a fresh connection."""
    with ControlClient.connect(home) as client:
        return client.request(kind, params, timeout)
