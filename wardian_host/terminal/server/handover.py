"""An upgrade of the terminal server: the running one hands every terminal to a newer one.

The new server, starting, connects to the running one's socket and sends `HandOver`. The
running one stops reading its PTYs and, in one go (nothing else runs on its loop meanwhile,
so no byte is read or lost between the snapshot and the send), answers `HandedOver`, sends
over SCM_RIGHTS its lock (the same open file: the flock is never let go), its listening
socket (clients connecting meanwhile wait in its backlog for the new server) and each live
PTY's master, then each terminal's ring, and exits. The agents' processes never notice:
their PTYs stay open in the new server, at the same offsets.

Both sides here are blocking: the new server runs this before its loop starts, the old one
has nothing left to serve.
"""

import contextlib
import os
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wardian_core import terminal_wire as wire
from wardian_core.control import endpoint
from wardian_core.errors import WardianError

# Linux passes at most 253 descriptors in one message (SCM_MAX_FD): they go in batches.
DESCRIPTORS_PER_MESSAGE = 200
BATCH_MARK = b"F"  # the byte each batch of descriptors rides on
HANDOVER_SECONDS = 30.0
OFFSET = struct.Struct(">Q")


@dataclass
class Handing:
    """What the running server hands over: the answer, its descriptors, each terminal's ring."""

    answer: wire.HandedOver
    descriptors: list[int]
    rings: list[tuple[memoryview, list[int]]]  # (bytes from start_offset, where its appends began)


@dataclass
class Received:
    """What a new server took over, its descriptors its own (close-on-exec)."""

    answer: wire.HandedOver  # the one that came
    lock_fd: int
    listener: socket.socket
    masters: dict[str, int]  # by terminal key, for those that have one
    rings: list[tuple[bytes, list[int]]]


def hand_over(connection_fd: int, handing: Handing) -> None:
    """Send `handing` on the connection `connection_fd` (the old server's side)."""
    with socket.socket(fileno=os.dup(connection_fd)) as sock:
        sock.settimeout(HANDOVER_SECONDS)  # a new server that stops reading cannot hold this one forever
        sock.sendall(wire.encode(handing.answer))
        for start in range(0, len(handing.descriptors), DESCRIPTORS_PER_MESSAGE):
            socket.send_fds(sock, [BATCH_MARK], handing.descriptors[start : start + DESCRIPTORS_PER_MESSAGE])
        for data, starts in handing.rings:
            sock.sendall(data)
            sock.sendall(b"".join(OFFSET.pack(start) for start in starts))


def take_over(path: Path) -> Received:
    """Connect to the running server at `path` and take every terminal it holds (the new server's side)."""
    try:
        return _take_over(path)
    except (OSError, ValueError) as exc:  # ValueError: a frame this version cannot read
        raise WardianError(
            "request_failed",
            f"the running terminal server did not hand its terminals over: {exc}",
            "It may predate handovers: `wardian host stop` with its own Wardian ends it and its agents.",
            {"reason": "handover_failed"},
        ) from exc


def _take_over(path: Path) -> Received:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(HANDOVER_SECONDS)
        sock.connect(os.fspath(path))
        endpoint.check_same_user(endpoint.peer_uid(sock), os.getuid(), "running terminal server")
        sock.sendall(wire.encode(wire.HandOver(wire.TERMINAL_PROTOCOL_VERSION, os.getpid())))
        answer = _answer(sock)
        descriptors = _descriptors(sock, answer.descriptors)
        try:
            rings = [_ring(sock, terminal) for terminal in answer.terminals]
        except BaseException:
            for fd in descriptors:
                os.close(fd)
            raise
    lock_fd, listener_fd, *masters = descriptors
    keys = [terminal.key for terminal in answer.terminals if terminal.has_master]
    listener = socket.socket(fileno=listener_fd)
    return Received(answer, lock_fd, listener, dict(zip(keys, masters, strict=True)), rings)


def _answer(sock: socket.socket) -> wire.HandedOver:
    """The `handed_over` that came; a `refused` is raised, any other frame is a BadFrame."""
    header_size, payload_size = wire.check_prefix(_exactly(sock, wire.PREFIX.size))
    answer = wire.decode(_exactly(sock, header_size), wire.HANDOVER_ANSWERS)
    _exactly(sock, payload_size)
    if isinstance(answer, wire.Refused):
        raise WardianError.from_envelope({"error": answer.error})
    if not isinstance(answer, wire.HandedOver):  # none: HANDOVER_ANSWERS reads only the two
        raise wire.BadFrame(f"a {answer.kind!r} frame is no answer to a handover")
    return answer


def _descriptors(sock: socket.socket, count: int) -> list[int]:
    taken: list[int] = []
    try:
        while len(taken) < count:
            # One byte at a time: a read never runs past a batch's byte into the next one's descriptors.
            mark, fds, _, _ = socket.recv_fds(sock, 1, DESCRIPTORS_PER_MESSAGE)
            taken += fds
            if mark != BATCH_MARK:
                raise ConnectionError("the running terminal server ended its handover early")
        for fd in taken:
            os.set_inheritable(fd, False)  # no agent started later inherits another one's PTY
    except BaseException:
        for fd in taken:
            os.close(fd)
        raise
    if len(taken) != count:
        raise ConnectionError(f"{len(taken)} descriptors came, {count} were announced")
    return taken


def _ring(sock: socket.socket, terminal: wire.HandedTerminal) -> tuple[bytes, list[int]]:
    data = _exactly(sock, terminal.ring_bytes)
    starts = _exactly(sock, OFFSET.size * terminal.pieces)
    return data, [start for (start,) in OFFSET.iter_unpack(starts)]


def _exactly(sock: socket.socket, count: int) -> bytes:
    """`count` bytes, never more: what follows may carry descriptors."""
    return b"".join(_chunks(sock, count))


def _chunks(sock: socket.socket, count: int) -> Iterator[bytes]:
    while count > 0:
        chunk = sock.recv(min(count, 1 << 20))
        if not chunk:
            raise ConnectionError("the running terminal server ended its handover early")
        count -= len(chunk)
        yield chunk


def claim_lock(lock_fd: int) -> None:
    """Write this pid into the lock file the handover brought (its flock was never let go)."""
    with contextlib.suppress(OSError):
        os.ftruncate(lock_fd, 0)
        os.pwrite(lock_fd, f"{os.getpid()}\n".encode(), 0)
