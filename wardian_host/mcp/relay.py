"""`wardian mcp`: the relay between an agent's CLI (MCP over stdio) and the host, which serves
Wardian's MCP tools once for every agent (`wardian_host/mcp/session`).

Standard library only, so it starts as fast as `wardian --version` and holds a few MB: each
agent's CLI starts one, often fifty at once on two cores, and the SDK's import alone took over
a second of CPU each. It opens one control connection (`mcp.session`), passes each line the CLI
writes to the host as it is, and writes each message the host streams back as one line.

Who calls is the host's business, as for every `wardian` command: the relay is the CLI's child,
so the host ties its connection to that agent by its process tree (docs/mcp.md).

A host restart closes the connection: the calls it had taken are answered as tool errors that
say so (one may have taken effect), and the relay connects to the next host, as a waiting
`wardian` command does, holding what the CLI writes meanwhile. It leaves as soon as the CLI
closes its standard input, and the host cancels whatever that client had in flight.
"""

import json
import os
import re
import selectors
import socket
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

from wardian_core import paths
from wardian_core.control.client import ControlClient
from wardian_core.control.protocol import MAX_FRAME_BYTES, encode, request_frame
from wardian_core.errors import WardianError
from wardian_host.mcp.messages import encoded, error_message, failed_call, result_message

SESSION_KIND = "mcp.session"
# A line the CLI writes may carry a message at the limit with the JSON-RPC around it; what is
# longer is answered here, unread (the host checks the message against the limit itself).
MAX_LINE_BYTES = MAX_FRAME_BYTES + 64 * 1024
_HEAD_BYTES = 4096
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
# How long the relay waits for a host (at start, or the next one after a restart) before it
# answers the CLI's requests with an error; it goes on trying as long as the CLI stays.
HOST_WAIT_SECONDS = 60.0
RETRY_SECONDS = 0.2
IDLE_RETRY_SECONDS = 2.0  # no host for longer than that wait: look for one now and then
HOST_GONE = -32000  # a JSON-RPC server error: no host answers this home


def _jsonrpc_error(request_id: Any, message: str) -> bytes:
    return encoded(error_message(request_id, HOST_GONE, message))


def _interrupted_call(request_id: Any) -> bytes:
    """A call the host had taken when it went away: a tool error the model can act on."""
    error = WardianError(
        "host_restarted",
        "the Wardian host restarted while this call ran; it may or may not have taken effect",
        "Check (show_agent, list_agents or show_request) before calling it again.",
    )
    return encoded(result_message(request_id, failed_call(error)))


def _request_id(line: bytes) -> tuple[bool, Any, str]:
    """(whether `line` is a request that expects an answer, its id, its method)."""
    try:
        message = json.loads(line)
    except ValueError:
        return False, None, ""
    if isinstance(message, dict) and "method" in message and "id" in message:
        return True, message["id"], str(message["method"])
    return False, None, ""


def _where_we_stand() -> dict[str, Any]:
    """What a command's own process would tell the host: its directory and the agent it claims."""
    return {"cwd": os.getcwd(), "session_id": os.environ.get("WARDIAN_SESSION_ID", "").strip() or None}


class Lines:
    """Bytes split into lines. A line over MAX_LINE_BYTES is not kept: its first few KB are
    (`dropped`), so the request it was can still be answered."""

    def __init__(self) -> None:
        self._partial = bytearray()
        self._dropping = False
        self.dropped: list[bytes] = []

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        self._partial += data
        while (end := self._partial.find(b"\n")) >= 0:
            line = bytes(self._partial[: end + 1])
            del self._partial[: end + 1]
            if self._dropping:
                self._dropping = False
            elif line.strip():
                lines.append(line)
        if len(self._partial) > MAX_LINE_BYTES:
            if not self._dropping:
                self.dropped.append(bytes(self._partial[:_HEAD_BYTES]))
            self._partial.clear()
            self._dropping = True
        return lines


def _too_long(head: bytes) -> bytes | None:
    """The answer to a line too long to pass on, from its head: a tool call gets the error a
    message over the limit gets; an id we cannot find gets nothing (nothing to answer)."""
    found = _ID.search(head)
    if found is None:
        return None
    error = WardianError(
        "message_too_large",
        f"this request is over {MAX_LINE_BYTES} bytes, more than the host takes",
        "Send a shorter message (at most 8 MiB), or split it into several.",
        {"limit_bytes": MAX_LINE_BYTES},
    )
    return encoded(result_message(json.loads(found.group(1)), failed_call(error)))


class Relay:
    def __init__(self, home: Path, stdin_fd: int, stdout: BinaryIO) -> None:
        self._home = home
        self._stdin_fd = stdin_fd
        self._stdout = stdout
        self._selector = selectors.DefaultSelector()
        self._host: socket.socket | None = None
        self._from_cli = Lines()
        self._from_host = Lines()
        self._held: list[bytes] = []  # lines written while no host listened
        # The requests the host took and has not answered: json of the id -> (id, method, line).
        self._in_flight: dict[str, tuple[Any, str, bytes]] = {}
        # No host at the start is not waited for: the CLI hears at once that none runs. One that
        # went away is waited for (a restart), holding what the CLI writes meanwhile.
        self._host_missing_since: float | None = time.monotonic() - HOST_WAIT_SECONDS
        self._next_try = 0.0
        self._refusal: str | None = None  # why the host refused the session, told to each request

    def run(self) -> int:
        self._selector.register(self._stdin_fd, selectors.EVENT_READ, "cli")
        while True:
            if self._host is None:
                self._try_host()
            for key, _ in self._selector.select(self._select_timeout()):
                if key.data == "cli" and not self._from_cli_readable():
                    self._close_host()
                    return 0
                # The same select may report the host's socket after the CLI's line made the
                # relay drop that connection (a refusal, a write that failed): only the live one.
                if key.data == "host" and key.fileobj is self._host:
                    self._from_host_readable()

    def _select_timeout(self) -> float | None:
        return None if self._host is not None else max(self._next_try - time.monotonic(), 0.0)

    def _from_cli_readable(self) -> bool:
        data = os.read(self._stdin_fd, 65536)
        if not data:
            return False  # the CLI closed our stdin: it is done with us
        for line in self._from_cli.feed(data):
            self._forward(line)
        for head in self._from_cli.dropped:
            answer = _too_long(head)
            if answer is not None:
                self._write(answer)
        self._from_cli.dropped.clear()
        return True

    def _forward(self, line: bytes) -> None:
        if self._host is None:
            if self._waited_too_long():
                self._refuse(line)
            else:
                self._held.append(line)
            return
        expects, request_id, method = _request_id(line)
        if expects:
            self._in_flight[json.dumps(request_id)] = (request_id, method, line)
        try:
            self._host.sendall(line)
        except OSError:
            self._host_lost()

    def _refuse(self, line: bytes) -> None:
        expects, request_id, _ = _request_id(line)
        if expects:
            message = self._refusal or f"no Wardian host runs for {self._home}: start it with `wardian host start`"
            self._write(_jsonrpc_error(request_id, message))

    def _waited_too_long(self) -> bool:
        since = self._host_missing_since
        return since is not None and time.monotonic() - since > HOST_WAIT_SECONDS

    def _from_host_readable(self) -> None:
        assert self._host is not None
        try:
            data = self._host.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._host_lost()
            return
        for line in self._from_host.feed(data):
            self._from_host_frame(line)

    def _from_host_frame(self, line: bytes) -> None:
        frame = json.loads(line)
        item = frame.get("stream")
        if isinstance(item, dict) and "mcp" in item:
            self._refusal = None
            message = item["mcp"]
            if isinstance(message, dict) and "method" not in message:
                self._in_flight.pop(json.dumps(message.get("id")), None)
            self._write(encoded(message))
        elif "ok" in frame or "error" in frame:
            self._session_ended(frame)

    def _session_ended(self, frame: dict[str, Any]) -> None:
        """The host answered the session's request, which it does only to refuse it. A busy host
        is tried again soon; any other refusal (a host of another version, of another user) is
        what each request hears, with a look for a new host now and then."""
        error = frame.get("error")
        error = error if isinstance(error, dict) else {"code": "request_failed", "message": "the host ended it"}
        if error.get("code") == "host_busy":
            self._host_lost()
            return
        self._refusal = f"the Wardian host refused this MCP session ({error.get('code')}): {error.get('message')}"
        if error.get("hint"):
            self._refusal += f" {error['hint']}"
        sys.stderr.write(f"wardian mcp: {self._refusal}\n")
        self._host_lost(refused=True)
        self._host_missing_since = time.monotonic() - HOST_WAIT_SECONDS  # refuse at once, not hold
        self._refuse_held()

    def _host_lost(self, refused: bool = False) -> None:
        """The host went away: what it had taken is held for the next host (initialize, a list:
        asking again changes nothing), but a tool call, which may have taken effect, is answered
        `host_restarted`. When the host `refused` the session, every request waits to be refused."""
        self._close_host()
        for request_id, method, line in self._in_flight.values():
            if method == "tools/call" and not refused:
                self._write(_interrupted_call(request_id))
            else:
                self._held.append(line)
        self._in_flight.clear()
        self._host_missing_since = time.monotonic()

    def _close_host(self) -> None:
        if self._host is not None:
            self._selector.unregister(self._host)
            self._host.close()
            self._host = None

    def _try_host(self) -> None:
        if time.monotonic() < self._next_try:
            return
        self._next_try = time.monotonic() + (IDLE_RETRY_SECONDS if self._waited_too_long() else RETRY_SECONDS)
        try:
            client = ControlClient.connect(self._home, timeout=1.0)
        except WardianError:
            if self._waited_too_long():
                self._refuse_held()
            return
        sock = client.raw_socket()
        try:
            sock.sendall(encode(request_frame(1, SESSION_KIND, _where_we_stand())))
        except OSError:
            sock.close()
            return
        sock.settimeout(None)
        self._host = sock
        self._from_host = Lines()
        self._selector.register(sock, selectors.EVENT_READ, "host")
        self._host_missing_since = None
        held, self._held = self._held, []
        for line in held:
            self._forward(line)

    def _refuse_held(self) -> None:
        held, self._held = self._held, []
        for line in held:
            self._refuse(line)

    def _write(self, line: bytes) -> None:
        try:
            self._stdout.write(line)
            self._stdout.flush()
        except BrokenPipeError:
            os._exit(0)  # the CLI is gone: nobody is left to answer


def main() -> None:
    home = paths.wardian_home()
    try:
        paths.check_owner(home)  # as every `wardian` command: a home of another user is refused
    except WardianError as error:
        sys.stderr.write(error.to_json() + "\n")
        os._exit(error.exit_code)
    code = Relay(home, sys.stdin.fileno(), sys.stdout.buffer).run()
    sys.stdout.flush()
    os._exit(code)  # no interpreter teardown: the CLI waits for this process to leave
