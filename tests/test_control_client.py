"""The CLI's side of the control endpoint against a busy or picky host: retries, size limit."""

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wardian_core.control import endpoint
from wardian_core.control.client import ControlClient
from wardian_core.control.protocol import MAX_FRAME_BYTES, encode, error_frame, ok_frame
from wardian_core.errors import WardianError


class _ListeningSocket:
    """A socket at the home's endpoint that nobody accepts on until `serve()` is called."""

    def __init__(self, home: Path, backlog: int = 0) -> None:
        self.path = endpoint.socket_path(home)
        endpoint.ensure_private_dir(self.path.parent)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(self.path))
        self.server.listen(backlog)
        self.received: list[bytes] = []
        self.queued: list[socket.socket] = []

    def fill_queue(self) -> None:
        """Connect without being accepted until the kernel's listen queue is full (EAGAIN)."""
        while True:
            waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            waiting.setblocking(False)
            try:
                waiting.connect(str(self.path))
            except BlockingIOError:
                waiting.close()
                return
            self.queued.append(waiting)

    def serve(self, answers: list[dict]) -> threading.Thread:
        """Accept connections; answer each first frame with the next of `answers` (the last repeats)."""

        def run() -> None:
            index = 0
            while True:
                try:
                    connection, _ = self.server.accept()
                except OSError:
                    return
                with connection:
                    line = connection.makefile("rb").readline()
                    if not line:
                        continue  # one of fill_queue's sockets
                    self.received.append(line)
                    answer = answers[min(index, len(answers) - 1)]
                    index += 1
                    connection.sendall(encode(answer | {"id": json.loads(line)["id"]}))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        for waiting in self.queued:
            waiting.close()
        self.server.close()


@pytest.fixture
def listening(wardian_home: Path) -> Iterator[_ListeningSocket]:
    listener = _ListeningSocket(wardian_home)
    yield listener
    listener.close()


def test_a_full_listen_queue_is_control_endpoint_timeout_not_app_not_running(run_wardian, listening) -> None:
    listening.fill_queue()
    result = run_wardian("host", "status", env={"WARDIAN_CONTROL_TIMEOUT": "0.5"})
    assert result.returncode == 7, result.stderr
    error = result.error()
    assert error["code"] == "control_endpoint_timeout" and "queue" in error["details"]["reason"]
    assert error["hint"]


def test_the_client_connects_once_a_full_listen_queue_drains(
    wardian_home: Path, listening, monkeypatch: pytest.MonkeyPatch
) -> None:
    listening.fill_queue()
    refused = threading.Event()
    connect = socket.socket.connect

    def observed_connect(sock: socket.socket, address: str) -> None:  # the host's socket path
        try:
            connect(sock, address)
        except BlockingIOError:
            refused.set()
            raise

    monkeypatch.setattr(socket.socket, "connect", observed_connect)
    answers: list[object] = []

    def client() -> None:
        with ControlClient.connect(wardian_home) as connected:
            answers.append(connected.request("host.status"))

    asking = threading.Thread(target=client)
    asking.start()
    assert refused.wait(10), "the client never met the full queue"
    for waiting in listening.queued:  # the queue drains: the host caught up
        waiting.close()
    listening.serve([ok_frame(None, {"pid": 1})])
    asking.join(10)
    assert answers == [{"pid": 1}]


def test_host_busy_is_retried_on_a_new_connection_until_the_host_takes_the_request(
    wardian_home: Path, listening
) -> None:
    busy = error_frame(None, {"code": "host_busy", "message": "at its limit of connections"})
    listening.serve([busy, busy, ok_frame(None, {"pid": 1})])
    with ControlClient.connect(wardian_home) as client:
        assert client.request("host.status") == {"pid": 1}
    assert len(listening.received) == 3


def test_a_host_busy_until_the_deadline_is_control_endpoint_timeout(run_wardian, listening) -> None:
    listening.serve([error_frame(None, {"code": "host_busy", "message": "at its limit of connections"})])
    result = run_wardian("host", "status", env={"WARDIAN_CONTROL_TIMEOUT": "0.3"})
    assert result.returncode == 7
    error = result.error()
    assert error["code"] == "control_endpoint_timeout" and "limit of connections" in error["message"]
    assert len(listening.received) > 1


def test_a_request_over_the_frame_limit_is_refused_before_sending(wardian_home: Path, listening) -> None:
    listening.serve([ok_frame(None, {})])
    with ControlClient.connect(wardian_home) as client, pytest.raises(WardianError) as refused:
        client.request("send", {"to": "somebody", "text": "x" * MAX_FRAME_BYTES})
    error = refused.value
    assert error.code == "message_too_large" and error.exit_code == 1
    assert error.details["size_bytes"] > MAX_FRAME_BYTES and "8 MiB" in error.message and error.hint
    assert listening.received == []


def test_send_of_a_file_over_the_limit_is_message_too_large_from_the_cli(
    run_wardian, listening, tmp_path: Path
) -> None:
    listening.serve([ok_frame(None, {})])
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * (MAX_FRAME_BYTES + 1))
    result = run_wardian("send", "--to", "somebody", "--file", str(big))
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == "message_too_large" and "--file" in error["hint"]
    assert listening.received == []


@pytest.mark.parametrize("value", ["-1", "0", "abc", "nan", "inf", "1e400", "9999999999"])
def test_a_control_timeout_that_is_not_a_positive_number_is_usage_not_a_traceback(run_wardian, value: str) -> None:
    result = run_wardian("host", "status", env={"WARDIAN_CONTROL_TIMEOUT": value})
    assert "Traceback" not in result.stderr
    error = result.error()
    assert (result.returncode, error["code"], error["details"]["value"]) == (1, "usage", value)
    assert "WARDIAN_CONTROL_TIMEOUT=30" in error["hint"]


def test_a_control_timeout_with_blanks_around_it_is_read(run_wardian) -> None:
    result = run_wardian("host", "status", env={"WARDIAN_CONTROL_TIMEOUT": " 2.5 "})
    assert result.error()["code"] == "app_not_running"  # past the variable: it looked for the host
