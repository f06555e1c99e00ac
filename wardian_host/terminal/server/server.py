"""The terminal server: owns every agent's PTY of one home, so agents outlive the host.

It holds, per agent (named by its uuid, the `key`): the PTY (`PtyTable`, both POSIX
backends), a bounded ring of its output by absolute offset, its exit once it came. One
host at a time is its client: it launches, writes, resizes, follows output from an offset,
and releases a terminal once it recorded its exit. While no host is connected the PTYs
are still read (into the rings, which keep the newest bytes), so agents never block on a
host that is restarting. While a connected host reads slowly, the PTYs are not read
(the agents block on their own full PTY): nothing here grows beyond the rings and one
transport's high-water mark. No parsing, no plugins, no state.db.

A newer server (an upgrade) may ask for every terminal (`handover`): this one hands its
lock, socket, PTYs and rings over while no host is connected, and ends.
"""

import asyncio
import contextlib
import functools
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wardian_core import terminal_wire as wire
from wardian_core.clock import now_iso
from wardian_core.control import endpoint
from wardian_core.errors import WardianError
from wardian_core.pty_backend import Backend
from wardian_core.version import __version__
from wardian_host.terminal.ptys import PtyTable
from wardian_host.terminal.server import handover
from wardian_host.terminal.server.framing import read_frame
from wardian_host.terminal.server.handed_terminal import HandedTerminal
from wardian_host.terminal.server.host_writer import HostWriter
from wardian_host.terminal.server.recorder import Recorder
from wardian_host.terminal.server.ring import DEFAULT_RING_BYTES, OutputRing

log = logging.getLogger(__name__)

# A host reading slower than its agents write: above this many bytes queued for it, the
# PTYs wait (the agents block writing) until the queue drains below the low mark. Every
# agent's output shares this one queue, so its depth is how long a quiet agent's prompt
# waits behind another's flood (benchmarks/terminal_server.py (d)); a flood's rate needs
# only a few batches in flight.
HIGH_WATER_BYTES = 256 * 1024
LOW_WATER_BYTES = 64 * 1024
# What one read of a PTY hands on at most: the step in which a flood and a quiet agent take turns.
READ_BATCH_BYTES = 64 * 1024
# asyncio 3.13+ unlinks a Unix server's socket file when it closes: this server does that itself,
# and never after a handover, when the listening socket and its file are the new server's.
KEEP_SOCKET_FILE: dict[str, Any] = {"cleanup_socket": False} if sys.version_info >= (3, 13) else {}


@dataclass(eq=False)
class Record:
    """What the server keeps of one terminal, from its launch until the host releases it."""

    key: str
    pid: int
    session_id: int
    ring: OutputRing
    followed: bool = False
    acked_offset: int = 0  # the end of what a host said it parsed
    exited: bool = False
    exit_code: int | None = None
    recorder: Recorder | None = None  # None: this agent's output is not recorded

    def _told(self) -> dict[str, Any]:
        """What a host is told of it and a newer server is handed alike."""
        return {
            "key": self.key,
            "pid": self.pid,
            "session_id": self.session_id,
            "start_offset": self.ring.start_offset,
            "acked_offset": max(self.acked_offset, self.ring.start_offset),
            "exited": self.exited,
            "exit_code": self.exit_code,
        }

    def handed(self, rows: int, cols: int, ring_bytes: int, pieces: int, has_master: bool) -> wire.HandedTerminal:
        recording = self.recorder if self.recorder is not None and self.recorder.recording else None
        return wire.HandedTerminal(
            **self._told(),
            rows=rows,
            cols=cols,
            ring_bytes=ring_bytes,
            pieces=pieces,
            has_master=has_master,
            recording_dir=str(recording.folder) if recording is not None else None,
            recording_max_bytes=recording.max_bytes if recording is not None else 0,
        )

    def state(self, rows: int, cols: int) -> wire.TerminalState:
        return wire.TerminalState(**self._told(), end_offset=self.ring.end_offset, rows=rows, cols=cols)


@dataclass(eq=False)
class HostLink:
    writer: asyncio.StreamWriter
    writes: HostWriter
    draining: asyncio.Task[None] | None = field(default=None)


class TerminalServer:
    def __init__(
        self, socket_path: Path, backend: Backend, ring_bytes: int = DEFAULT_RING_BYTES, lock_fd: int | None = None
    ) -> None:
        self.path = socket_path
        self.started_at = now_iso()
        self._ring_bytes = ring_bytes
        self._backend = backend
        self._lock_fd = lock_fd  # handed to a newer server with the rest
        self._ptys = PtyTable(asyncio.get_running_loop(), backend, READ_BATCH_BYTES)
        self._records: dict[str, Record] = {}
        self._host: HostLink | None = None
        self._server: asyncio.Server | None = None
        self._handed_over = False
        self.stopped = asyncio.Event()

    async def start(self, received: handover.Received | None = None) -> None:
        """Bind the socket (the caller holds the server lock, so an existing file is stale), or
        serve the one an older server handed over with its terminals."""
        endpoint.peer_credential_means()
        if received is not None:
            self._server = await asyncio.start_unix_server(self._serve, sock=received.listener, **KEEP_SOCKET_FILE)
            self._adopt(received)
            return
        endpoint.ensure_private_dir(self.path.parent)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, path=os.fspath(self.path), **KEEP_SOCKET_FILE)
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self._host is not None:
            self._host.writer.close()
        if self._handed_over:
            return  # the socket's file and the PTYs are the new server's now
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for pty in self._ptys.all():  # as a closing terminal window does
            pty.terminal.close()

    # -- connections ------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            refusal = self._stranger(writer)
            hello = (await read_frame(reader, wire.decode_client))[0] if refusal is None else None
            if refusal is None and isinstance(hello, wire.HandOver):
                refusal = self._hand_over(writer, hello)
                if refusal is None:
                    return
            if refusal is None and (not isinstance(hello, wire.Hello) or hello.v != wire.TERMINAL_PROTOCOL_VERSION):
                refusal = _mismatch(hello)
            # Checked after the last await before the host is taken on: two hosts cannot both pass.
            refusal = refusal or self._host_connected()
            if refusal is not None:
                writer.write(wire.encode(wire.Refused(refusal.envelope()["error"])))
                await writer.drain()
                return
            await self._serve_host(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:  # ValueError: a bad frame
            log.info("host connection ended: %s", exc)
        finally:
            writer.close()

    @staticmethod
    def _stranger(writer: asyncio.StreamWriter) -> WardianError | None:
        _, uid, _ = endpoint.peer_credentials(writer.get_extra_info("socket"))
        if uid != os.getuid():
            return WardianError("unauthorized", f"uid {uid} may not use this terminal server")
        return None

    def _host_connected(self) -> WardianError | None:
        if self._host is None:
            return None
        return WardianError(
            "request_failed",
            "another host of this home is connected to its terminal server",
            "Use that host; `wardian host status` names it.",
            {"reason": "host_connected"},
        )

    async def _serve_host(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = HostLink(writer, HostWriter(writer, self._check_backlog))
        self._host = link
        writer.transport.set_write_buffer_limits(high=HIGH_WATER_BYTES, low=LOW_WATER_BYTES)
        try:
            writer.write(wire.encode(self._welcome()))
            while True:
                frame, payload = await read_frame(reader, wire.decode_client)
                if isinstance(frame, wire.Shutdown):
                    self.stopped.set()
                    return
                self._handle(frame, payload)
        finally:
            self._host = None
            link.writes.close()
            for record in self._records.values():
                record.followed = False  # a new host says from where it follows
            if link.draining is not None:
                link.draining.cancel()
            self._ptys.resume_reading()  # nobody to wait for: the rings take the output
            self._stop_if_unneeded()

    def _size(self, key: str) -> tuple[int, int]:
        pty = self._ptys.get(key)
        return (pty.rows, pty.cols) if pty is not None else (1, 1)  # an exited one's: no PTY left

    def _welcome(self) -> wire.Welcome:
        states = [record.state(*self._size(record.key)) for record in self._records.values()]
        protocol = wire.TERMINAL_PROTOCOL_VERSION
        return wire.Welcome(protocol, os.getpid(), __version__, self.started_at, self._backend, states)

    def _handle(self, frame: wire.ClientFrame, payload: bytes) -> None:
        if isinstance(frame, wire.Launch):
            self._launch(frame)
        elif isinstance(frame, wire.Write):
            if self._ptys.get(frame.key) is not None:
                self._ptys.write(frame.key, payload)
        elif isinstance(frame, wire.Resize):
            self._ptys.resize(frame.key, frame.rows, frame.cols)
            if (resized := self._records.get(frame.key)) is not None and resized.recorder is not None:
                resized.recorder.resize(resized.ring.end_offset, frame.rows, frame.cols)
        elif isinstance(frame, wire.Follow):
            self._follow(frame.key, frame.offset)
        elif isinstance(frame, wire.Ack):
            if (acked := self._records.get(frame.key)) is not None:
                acked.acked_offset = max(acked.acked_offset, frame.offset)
        elif isinstance(frame, wire.Release):
            record = self._records.get(frame.key)
            if record is not None and record.exited:
                del self._records[frame.key]
                if record.recorder is not None:
                    record.recorder.close()

    # -- terminals --------------------------------------------------------------------------

    def _launch(self, frame: wire.Launch) -> None:
        record: Record | None = None

        def on_output(data: bytes) -> None:
            assert record is not None
            self._output(record, data)

        def on_exit(exit_code: int | None) -> None:
            assert record is not None
            self._exited(record, exit_code)

        key, size = frame.key, (frame.rows, frame.cols)
        try:
            terminal = self._ptys.open(key, frame.argv, frame.env, Path(frame.cwd), size, on_output, on_exit)
        except WardianError as error:
            self._send(wire.LaunchFailed(frame.id, error.envelope()["error"]))
            return
        except OSError as exc:
            failure = WardianError("request_failed", f"cannot start {frame.argv[0]!r}: {exc.strerror or exc}")
            self._send(wire.LaunchFailed(frame.id, failure.envelope()["error"]))
            return
        ring = OutputRing(self._ring_bytes, start_offset=frame.offset)
        record = Record(key, terminal.pid, terminal.session_id, ring, followed=True, acked_offset=frame.offset)
        record.recorder = _recorder(frame.recording_dir, frame.recording_max_bytes, size)
        self._records[key] = record
        self._send(wire.Launched(frame.id, key, terminal.pid, terminal.session_id))

    def _hand_over(self, writer: asyncio.StreamWriter, frame: wire.HandOver) -> WardianError | None:
        """Hand every terminal to the newer server asking (see `handover`), then end; in one
        go, with no await: no PTY is read, no host taken on, between the snapshot and the send."""
        if self._lock_fd is None or self._server is None:
            return WardianError("not_supported", "this terminal server was started without its lock to hand over")
        refusal = self._host_connected()
        if refusal is not None:
            return refusal
        handing = self._handing(self._lock_fd, self._server.sockets[0].fileno())
        try:
            handover.hand_over(writer.get_extra_info("socket").fileno(), handing)
        except OSError as exc:  # the new server went away: this one keeps serving its terminals
            log.warning("handing the terminals over failed: %s", exc)
            return WardianError("request_failed", f"the handover failed: {exc}")
        finally:
            for data, _ in handing.rings:
                data.release()  # the rings may grow again
        log.info("handed %d terminals to the terminal server %d", len(self._records), frame.pid)
        self._server.close()  # accepts no more: a client connecting now is the new server's
        self._ptys.release_all()
        for record in self._records.values():
            if record.recorder is not None:
                record.recorder.close()  # the new server records from here on
        self._handed_over = True
        self.stopped.set()
        return None

    def _handing(self, lock_fd: int, listener_fd: int) -> handover.Handing:
        descriptors, terminals, rings = [lock_fd, listener_fd], [], []
        for record in self._records.values():
            pty = self._ptys.get(record.key)
            if pty is not None:
                descriptors.append(pty.terminal.fileno())
            data, starts = record.ring.kept()
            terminals.append(record.handed(*self._size(record.key), len(data), len(starts), pty is not None))
            rings.append((data, starts))
        answer = wire.HandedOver(wire.TERMINAL_PROTOCOL_VERSION, os.getpid(), terminals, len(descriptors))
        return handover.Handing(answer, descriptors, rings)

    def _adopt(self, received: handover.Received) -> None:
        """Take on the terminals an older server handed over, at the same offsets."""
        for handed, (data, starts) in zip(received.answer.terminals, received.rings, strict=True):
            key, pid, session_id, size = handed.key, handed.pid, handed.session_id, (handed.rows, handed.cols)
            ring = OutputRing.restored(self._ring_bytes, handed.start_offset, data, starts)
            record = Record(key, pid, session_id, ring, acked_offset=handed.acked_offset)
            record.exited, record.exit_code = handed.exited, handed.exit_code
            record.recorder = _recorder(handed.recording_dir, handed.recording_max_bytes, size)
            self._records[key] = record
            master = received.masters.get(key)
            if master is not None:
                terminal = HandedTerminal(master, pid, session_id)
                on_output = functools.partial(self._output, record)
                on_exit = functools.partial(self._exited, record)
                self._ptys.adopt(key, terminal, size, on_output, on_exit)

    def _output(self, record: Record, data: bytes) -> None:
        offset = record.ring.end_offset
        record.ring.append(data)
        if record.recorder is not None:
            record.recorder.output(offset, data)
        if record.followed and self._host is not None:
            self._host.writes.output(record.key, offset, data)

    def _exited(self, record: Record, exit_code: int | None) -> None:
        record.exited, record.exit_code = True, exit_code
        if record.followed and self._host is not None:
            self._send(wire.Exited(record.key, exit_code))
        self._stop_if_unneeded()

    def _stop_if_unneeded(self) -> None:
        """With no host connected and no terminal alive there is nothing to keep for a next host
        (one that comes starts a server again): a host that died with no agents leaves no server."""
        if self._host is None and all(record.exited for record in self._records.values()):
            self.stopped.set()

    def _follow(self, key: str, offset: int) -> None:
        record = self._records.get(key)
        if record is None:
            self._send(wire.Exited(key, None))  # unknown here: ended with a server before
            return
        for start, piece in record.ring.pieces_from(offset):  # each as it was read: see agents/adoption
            self._send(wire.Output(key, start), piece)
        record.followed = True
        if record.exited:
            self._send(wire.Exited(key, record.exit_code))

    def _send(self, frame: wire.ServerFrame, payload: bytes = b"") -> None:
        if self._host is not None:
            self._host.writes.frame(frame, payload)  # nothing, once its connection is closing

    def _check_backlog(self) -> None:
        link = self._host
        if link is None:
            return
        if link.draining is None and link.writer.transport.get_write_buffer_size() > HIGH_WATER_BYTES:
            self._ptys.pause_reading()
            link.draining = asyncio.ensure_future(self._drain(link))

    async def _drain(self, link: HostLink) -> None:
        with contextlib.suppress(ConnectionError):
            await link.writer.drain()
        link.draining = None
        self._ptys.resume_reading()


def _recorder(folder: str | None, max_bytes: int, size: tuple[int, int]) -> Recorder | None:
    """The recording a launch (or a handed-over terminal) asks for, None for none."""
    return Recorder(Path(folder), max_bytes, *size) if folder else None


def _mismatch(hello: wire.ClientFrame | None) -> WardianError:
    theirs = hello.v if isinstance(hello, wire.Hello) else None
    return WardianError(
        "protocol_mismatch",
        f"this terminal server speaks protocol {wire.TERMINAL_PROTOCOL_VERSION}, the host {theirs}",
        "Run `wardian host restart`: the new host hands the terminals to a server of its own version.",
        {"server": wire.TERMINAL_PROTOCOL_VERSION, "host": theirs},
    )
