"""The person's side of `wardian agent attach`: raw terminal in, agent's PTY out.

The local terminal is put in raw mode and restored on every way out (detach, the
agent exiting, no host coming back after one went away, a signal, an exception).
"""

import base64
import json
import os
import selectors
import signal
import socket
import sys
import termios
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from wardian_core.control.client import ControlClient, answer_too_large
from wardian_core.control.protocol import MAX_FRAME_BYTES, encode, request_frame
from wardian_core.errors import WardianError
from wardian_core.parsing import terminal_side
from wardian_host.answers.host_return import await_next_host

DEFAULT_DETACH_KEYS = "ctrl-\\,d"


def parse_detach_keys(text: str) -> bytes:
    """`ctrl-\\,d` → b"\\x1cd": comma-separated keys, `ctrl-X` for control keys."""
    keys = bytearray()
    for part in text.split(","):
        part = part.strip()
        if part.lower().startswith("ctrl-") and len(part) == 6:
            keys.append(ord(part[5].upper()) ^ 0x40)
        elif len(part) == 1:
            keys += part.encode()
        else:
            raise WardianError("usage", f"invalid detach key {part!r}", "Use keys like ctrl-\\,d or ctrl-a,q.")
    if not keys:
        raise WardianError("usage", "--detach-keys is empty", "Use keys like ctrl-\\,d.")
    return bytes(keys)


class DetachMatcher:
    """Finds the detach sequence in typed input, passing everything else through."""

    def __init__(self, sequence: bytes) -> None:
        self.sequence = sequence
        self._held = b""
        self.detached = False  # the sequence was typed: the attach is ending

    def feed(self, data: bytes) -> tuple[bytes, bool]:
        forward = bytearray()
        for byte in data:
            candidate = self._held + bytes([byte])
            if self.sequence.startswith(candidate):
                self._held = candidate
                if candidate == self.sequence:
                    return bytes(forward), True
            else:
                forward += candidate if not self.sequence.startswith(bytes([byte])) else self._held
                self._held = bytes([byte]) if self.sequence.startswith(bytes([byte])) else b""
        return bytes(forward), False


@contextmanager
def raw_terminal(fd: int) -> Iterator[None]:
    if not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSANOW)  # keep what was typed ahead
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _window_size(fd: int) -> tuple[int, int] | None:
    """The terminal's rows and columns; None when it has none to tell, and the agent keeps its own.

    A fresh `pty.fork()`, some CI runners and ssh without a pty report 0×0: no size at all.
    """
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return None
    if size.lines < 1 or size.columns < 1:
        return None
    return terminal_side(size.lines), terminal_side(size.columns)


def _frames(sock: socket.socket, buffer: bytearray) -> Iterator[dict[str, Any]]:
    chunk = sock.recv(65536)
    if not chunk:
        raise EOFError
    buffer += chunk
    while (end := buffer.find(b"\n")) >= 0:
        line = bytes(buffer[:end])
        del buffer[: end + 1]
        yield json.loads(line)
    if len(buffer) > MAX_FRAME_BYTES:  # no host of this version sends such a frame: stop, never hoard
        raise answer_too_large("agent.attach")


def run_attach(
    connect: Callable[[], ControlClient], target: str, read_only: bool, detach_keys: bytes
) -> dict[str, Any]:
    """Attach until detached or the agent ends. A host that goes away (a restart, a crash) is
    waited for (`host_return`): the terminal stays raw and attached again to the next host,
    which draws the agent's recent output as at a fresh attach."""
    stdin = sys.stdin.fileno()
    matcher = DetachMatcher(detach_keys)
    with raw_terminal(stdin):
        while True:
            with connect() as client:
                try:
                    return _attached(client.raw_socket(), target, read_only, matcher)
                except EOFError:
                    if matcher.detached:
                        return {"agent": target, "reason": "detached", "status": None}
            await_next_host(None)


def _attached(sock: socket.socket, target: str, read_only: bool, matcher: "DetachMatcher") -> dict[str, Any]:
    """One attach over `sock`, until the host answers; EOFError when it goes away first."""
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    size = _window_size(stdin) or _window_size(stdout)
    params = {
        "target": target,
        "read_only": read_only,
        "rows": size[0] if size else None,
        "cols": size[1] if size else None,
    }
    sock.settimeout(None)
    try:
        sock.sendall(encode(request_frame(1, "agent.attach", params)))
    except OSError:
        raise EOFError from None
    resized = []
    previous = signal.signal(signal.SIGWINCH, lambda *_: resized.append(True))
    buffer = bytearray()
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    # Standard input that is no terminal (a read-only attach from cron, nohup, CI) carries no
    # keys: it is not read, and the attach lasts until the agent exits or a signal ends it.
    if not matcher.detached and os.isatty(stdin):
        selector.register(stdin, selectors.EVENT_READ)
    try:
        while True:
            for key, _ in selector.select():
                if key.fileobj is sock:
                    for frame in _frames(sock, buffer):
                        if "stream" in frame and "output" in frame["stream"]:
                            os.write(stdout, base64.b64decode(frame["stream"]["output"]))
                        elif "ok" in frame:
                            if not frame["ok"]:
                                raise WardianError.from_envelope({"error": frame["error"]})
                            result: dict[str, Any] = frame["result"]
                            return result
                else:
                    typed = os.read(stdin, 4096)
                    forward, detach = matcher.feed(typed) if typed else (b"", True)
                    if forward and not read_only:
                        sock.sendall(encode({"input": base64.b64encode(forward).decode()}))
                    if detach:
                        matcher.detached = True
                        sock.sendall(encode({"detach": True}))
                        selector.unregister(stdin)
            if resized and (new_size := _window_size(stdin)):
                resized.clear()
                sock.sendall(encode({"resize": list(new_size)}))
    except (BrokenPipeError, ConnectionResetError):
        raise EOFError from None
    finally:
        signal.signal(signal.SIGWINCH, previous)
        selector.close()
