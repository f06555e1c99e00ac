"""The CLI's side of the control endpoint: connect, send a request, read the answer.

Plain sockets and json only, so a live `wardian agent list` costs little more than
reading state.db.
"""

import json
import os
import socket
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from wardian_core.control import endpoint
from wardian_core.control.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    deadline_after,
    default_timeout,
    encode,
    message_too_large,
    request_frame,
)
from wardian_core.errors import WardianError

DEFAULT = -1.0  # "use default_timeout()": None already means "wait for ever"

# A busy host (full listen queue, or `host_busy` at its connection limit) is alive: try
# again after pauses growing from 5 ms to 0.2 s, so a burst clears fast and a stuck
# host costs little CPU, until the control timeout.
FIRST_RETRY_PAUSE_SECONDS = 0.005
LONGEST_RETRY_PAUSE_SECONDS = 0.2


# The reasons of an `app_not_running` raised while a request was under way: the host went
# away (a restart, a crash) after it took the request.
CLOSED_REASON = "the host closed the connection"
LOST_REASON = "connection lost"


def lost_host(error: WardianError) -> bool:
    """Whether `error` says the host went away after it took the request (not that none ran)."""
    reason = str(error.details.get("reason", ""))
    return error.code == "app_not_running" and (reason == CLOSED_REASON or reason.startswith(LOST_REASON))


def app_not_running(home: Path, reason: str) -> WardianError:
    return WardianError(
        "app_not_running",
        f"no Wardian host is running for {home}",
        "Start it with `wardian host start` (or `wardian agent spawn`, which starts it).",
        {"home": str(home), "reason": reason},
    )


def endpoint_busy(reason: str, timeout: float) -> WardianError:
    return WardianError(
        "control_endpoint_timeout",
        f"the host stayed too busy to take this request for {timeout} s ({reason})",
        "Many clients are talking to the host at once: retry, raise WARDIAN_CONTROL_TIMEOUT, "
        "or check `wardian host logs` for a client that floods it.",
        {"reason": reason, "timeout_seconds": timeout},
    )


class Patience:
    """Growing pauses until a deadline, for retrying a host that is alive but busy."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._deadline = time.monotonic() + seconds
        self._pause = FIRST_RETRY_PAUSE_SECONDS

    def pause(self) -> bool:
        """Wait before the next try; False when the deadline has passed."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(self._pause, remaining))
        self._pause = min(self._pause * 2, LONGEST_RETRY_PAUSE_SECONDS)
        return True


def _open_socket(home: Path, timeout: float) -> socket.socket:
    """A connected socket, retried while the host's listen queue is full."""
    path = os.fspath(endpoint.socket_path(home))
    patience = Patience(timeout)
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            return sock
        except BlockingIOError:
            # EAGAIN: the listen queue is full. A socket with a timeout gets it at once
            # instead of waiting, and it means a live host, not a missing one.
            sock.close()
            if not patience.pause():
                raise endpoint_busy("its queue of new connections stayed full", patience.seconds) from None
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError) as exc:
            sock.close()
            raise app_not_running(home, type(exc).__name__) from None
        except OSError as exc:
            sock.close()
            raise app_not_running(home, str(exc)) from None


def answer_too_large(kind: str) -> WardianError:
    """An answer over the frame limit: a host of this version pages them, so an older one sent it."""
    return WardianError(
        "message_too_large",
        f"the host's answer to {kind!r} is over {MAX_FRAME_BYTES} bytes (8 MiB), more than the CLI reads",
        "Restart the host so it runs this Wardian (`wardian host restart`, which keeps every agent): "
        "it sends large answers in pages.",
        {"kind": kind, "limit_bytes": MAX_FRAME_BYTES},
    )


def endpoint_timeout(kind: str, timeout: float | None) -> WardianError:
    return WardianError(
        "control_endpoint_timeout",
        f"the host did not answer {kind!r} within {timeout} s",
        "The host starts no request after its client stopped waiting, so this one will not take effect later "
        "unless the host had begun it in time: check (e.g. `wardian agent show`) before sending it again. "
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
    def connect(cls, home: Path, timeout: float = DEFAULT) -> "ControlClient":
        sock = _open_socket(home, default_timeout() if timeout == DEFAULT else timeout)
        try:
            endpoint.check_same_user(
                endpoint.peer_uid(sock), os.getuid(), "host behind " + os.fspath(endpoint.socket_path(home))
            )
        except BaseException:
            sock.close()
            raise
        return cls(sock, home)

    def _reconnect(self) -> None:
        fresh = ControlClient.connect(self._home)
        self.close()
        self._sock, self._reader = fresh._sock, fresh._reader

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

    def _send(self, kind: str, params: dict[str, Any], deadline: float | None) -> int:
        request_id, self._next_id = self._next_id, self._next_id + 1
        fields = request_frame(request_id, kind, params)
        if deadline is not None:
            fields["deadline"] = deadline  # the host starts nothing after it (wardian_core.control.deadline)
        frame = encode(fields)
        if len(frame) > MAX_FRAME_BYTES:
            raise message_too_large(len(frame))  # the host would refuse it and close the connection
        try:
            self._sock.sendall(frame)
        except TimeoutError:
            raise endpoint_timeout(kind, self._sock.gettimeout()) from None
        except (BrokenPipeError, ConnectionResetError):
            pass  # the host refused and closed before reading it all: its answer says why
        except OSError as exc:
            raise app_not_running(self._home, f"{LOST_REASON}: {exc}") from None
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
            raise app_not_running(self._home, f"{LOST_REASON}: {exc}") from None
        if not line:
            raise app_not_running(self._home, CLOSED_REASON)
        if len(line) > MAX_FRAME_BYTES:
            raise answer_too_large(kind)
        frame: dict[str, Any] = json.loads(line)
        if frame.get("v") != PROTOCOL_VERSION:
            raise WardianError(
                "protocol_mismatch",
                f"the host speaks control protocol {frame.get('v')}, this CLI speaks {PROTOCOL_VERSION}",
                "Run `wardian host restart`: its agents go on, and the new host runs this Wardian.",
                {"host_protocol": frame.get("v"), "cli_protocol": PROTOCOL_VERSION},
            )
        return frame

    def exchange(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT
    ) -> Generator[dict[str, Any], None, Any]:
        """Send one request; yield its stream items, then return its result (StopIteration.value)."""
        if timeout == DEFAULT:
            timeout = default_timeout()
        request_id = self._send(kind, params or {}, deadline_after(timeout))
        patience: Patience | None = None
        while True:
            frame = self._read_frame(kind, timeout)
            if frame.get("id") != request_id and frame.get("id") is not None:
                continue
            if "stream" in frame:
                yield frame["stream"]
                continue
            if frame.get("ok"):
                return frame.get("result")
            error = frame.get("error") or {}
            if error.get("code") == "host_busy":  # the host did not read the request: sending it again is safe
                patience = patience or Patience(default_timeout())
                if not patience.pause():
                    raise endpoint_busy(str(error.get("message")), patience.seconds)
                self._reconnect()
                request_id = self._send(kind, params or {}, deadline_after(timeout))
                continue
            raise WardianError.from_envelope({"error": error})

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any:
        return result_of(self.exchange(kind, params, timeout))


def result_of(exchange: Generator[dict[str, Any], None, Any]) -> Any:
    """An exchange's answer, its stream items passed over."""
    while True:
        try:
            next(exchange)
        except StopIteration as done:
            return done.value


def request(home: Path, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any:
    """One request on a fresh connection."""
    with ControlClient.connect(home) as client:
        return client.request(kind, params, timeout)
