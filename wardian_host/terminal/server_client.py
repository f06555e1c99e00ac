"""The host's side of the terminal server: a `PtyOwner` whose PTYs live in that process.

`ServerPtys.connect` starts the home's server if none runs (a second one started at the
same moment finds the lock taken and the host connects to the first), checks the peer is
this user, and exchanges versions (a server of another version is upgraded: a new one takes
its terminals over). Output arrives as frames carrying their absolute
offset; a frame that repeats bytes already handed on (a follow from an older offset) is
trimmed, so the parser sees each byte once. What the parser took in is acknowledged a moment
later, with each terminal's newest offset (`parsed`). When the server's connection ends, every
terminal still open is told its exit (code None): the host records it as `terminal server
ended` (`on_server_lost`).
"""

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wardian_core import terminal_wire as wire
from wardian_core.atomic_files import open_unfollowed
from wardian_core.control import endpoint
from wardian_core.detached import start_detached
from wardian_core.errors import WardianError
from wardian_core.recording_format import Target
from wardian_host.terminal.ptys import ExitCodeHandler, OutputHandler
from wardian_host.terminal.server import process as server_process
from wardian_host.terminal.server.framing import FrameSplitter, read_frame

log = logging.getLogger(__name__)

# A new interpreter's start, as the host's own (host_lock.START_WAIT_SECONDS): in a clean-clone
# run's first minutes, with every real CLI starting beside it, 10 s was once too short.
START_WAIT_SECONDS = 30.0
BIND_WAIT_STEP_SECONDS = 0.02
# How long parses are gathered into one write of Acks; any other frame, or a close, tells them first.
ACK_DELAY_SECONDS = 0.05
# What one read of the server's connection takes at most: what a busy host's writer gathers.
READ_BYTES = 256 * 1024


@dataclass(eq=False)
class _Followed:
    on_output: OutputHandler
    on_exit: ExitCodeHandler
    next_offset: int = 0


class ServerPtys:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, welcome: wire.Welcome) -> None:
        self._reader = reader
        self._writer = writer
        self.welcome = welcome  # the terminals the server held when this host connected
        self._followed: dict[str, _Followed] = {}
        self._launches: dict[int, asyncio.Future[wire.Launched]] = {}
        self._next_id = 0
        self._loop = asyncio.get_running_loop()
        # Each terminal's newest parsed offset not yet told, and the call that tells them.
        self._acks: dict[str, int] = {}
        self._acks_due: asyncio.TimerHandle | None = None
        self.on_server_lost: Callable[[], None] = lambda: None
        self._reading = asyncio.ensure_future(self._read_frames())

    @classmethod
    async def connect(cls, home: Path) -> "ServerPtys":
        """Connect to the home's terminal server, starting it if none runs."""
        try:
            return await cls._handshake(*await _open(home))
        except (ConnectionError, asyncio.IncompleteReadError):
            # A server killed a moment ago may still accept while the kernel closes its socket:
            # the hello then meets a reset, a broken pipe or the end of the stream.
            return await cls._handshake(*await _open(home))
        except WardianError as error:
            if error.code != "protocol_mismatch":
                raise
            # The running server is of another version (an upgrade): one of ours takes its terminals.
            await asyncio.to_thread(start_server, home, True)
            return await cls._handshake(*await _open(home))

    @classmethod
    async def _handshake(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> "ServerPtys":
        try:
            endpoint.check_same_user(endpoint.peer_uid(writer.get_extra_info("socket")), os.getuid(), "terminal server")
            writer.write(wire.encode(wire.Hello(v=wire.TERMINAL_PROTOCOL_VERSION)))
            first, _ = await read_frame(reader, wire.decode_server)
        except BaseException:
            writer.close()
            raise
        if isinstance(first, wire.Welcome):
            return cls(reader, writer, first)
        writer.close()
        if isinstance(first, wire.Refused):
            raise WardianError.from_envelope({"error": first.error})
        raise WardianError("protocol_mismatch", f"the terminal server opened with {first.kind!r}")

    # -- the PtyOwner interface -------------------------------------------------------------

    async def open(
        self,
        key: str,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int],
        on_output: OutputHandler,
        on_exit: ExitCodeHandler,
        first_offset: int = 0,
        recording: Target | None = None,
    ) -> tuple[int, int]:
        self._next_id += 1
        answer = asyncio.get_running_loop().create_future()
        self._launches[self._next_id] = answer
        self._followed[key] = _Followed(on_output, on_exit, first_offset)  # its output may come with the answer
        rows, cols = size
        launch = wire.Launch(
            id=self._next_id,
            key=key,
            argv=argv,
            env=env,
            cwd=str(cwd),
            rows=rows,
            cols=cols,
            offset=first_offset,
            recording_dir=str(recording.folder) if recording is not None else None,
            recording_max_bytes=recording.max_bytes if recording is not None else 0,
        )
        self._send(launch)
        try:
            launched = await answer
        except BaseException:
            self._followed.pop(key, None)
            raise
        return launched.pid, launched.session_id

    def follow(self, key: str, offset: int, on_output: OutputHandler, on_exit: ExitCodeHandler) -> None:
        """Hear a terminal the server already holds from absolute `offset` on (a host re-adopting it)."""
        self._followed[key] = _Followed(on_output, on_exit, offset)
        self._send(wire.Follow(key=key, offset=offset))

    def parsed(self, key: str, offset: int) -> None:
        """The host's parser has reported what `key` printed up to `offset`: a next host need not again.

        Told `ACK_DELAY_SECONDS` later, the newest offset of each terminal in one write: an Ack
        per parse was a frame and a system call each (65,000 in a run of `benchmarks/host.py`
        (e)), and one write per loop turn still ~800 a second there, a quarter of the host's
        loop in a sampled profile. An Ack told late costs a next host a few events reported
        twice; one is never told ahead of what was parsed, which would lose them.
        """
        self._acks[key] = offset
        if self._acks_due is None:
            self._acks_due = self._loop.call_later(ACK_DELAY_SECONDS, self._tell_parsed)

    def write(self, key: str, data: bytes) -> None:
        for start in range(0, max(len(data), 1), wire.MAX_PAYLOAD_BYTES):
            self._send(wire.Write(key=key), data[start : start + wire.MAX_PAYLOAD_BYTES])

    def resize(self, key: str, rows: int, cols: int) -> None:
        self._send(wire.Resize(key=key, rows=rows, cols=cols))

    def shutdown(self) -> None:
        """End the server (every agent was stopped first)."""
        self._send(wire.Shutdown())

    async def close(self) -> None:
        self._tell_parsed()  # a next host need not report again what this one did
        self._reading.cancel()
        self._writer.close()
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await self._writer.wait_closed()

    @property
    def alive(self) -> bool:
        return not self._reading.done()

    # -- frames from the server -------------------------------------------------------------

    def _send(self, frame: wire.ClientFrame, payload: bytes = b"") -> None:
        self._tell_parsed()  # an Ack is held to the end of the turn, never put behind a later frame
        if not self._writer.is_closing():
            self._writer.write(wire.encode(frame, payload))

    def _tell_parsed(self) -> None:
        if self._acks_due is not None:
            self._acks_due.cancel()
            self._acks_due = None
        acks, self._acks = self._acks, {}
        if acks and not self._writer.is_closing():
            self._writer.write(b"".join(wire.encode_ack(key, offset) for key, offset in acks.items()))

    async def _read_frames(self) -> None:
        """Every frame a read brings, handled before the next read: with busy agents a read
        holds a dozen, one per terminal (the server gathers them), and awaiting each frame's
        three parts cost more than cutting them out of the read."""
        splitter = FrameSplitter()
        try:
            while data := await self._reader.read(READ_BYTES):
                for header, payload in splitter.feed(data):
                    self._dispatch(wire.decode_server(header), payload)
            reason = f"end of stream, {splitter.pending} bytes into a frame" if splitter.pending else "end of stream"
        except (ConnectionError, wire.BadFrame, wire.FrameTooLarge) as exc:
            reason = str(exc) or type(exc).__name__
        log.error("the terminal server's connection ended: %s", reason)
        self._lost()

    def _dispatch(self, frame: wire.ServerFrame, payload: bytes) -> None:
        if isinstance(frame, wire.Output):
            self._output(frame.key, frame.offset, payload)
        elif isinstance(frame, wire.Exited):
            followed = self._followed.pop(frame.key, None)
            self._send(wire.Release(key=frame.key))
            if followed is not None:
                followed.on_exit(frame.exit_code)
        elif isinstance(frame, wire.Launched | wire.LaunchFailed):
            answer = self._launches.pop(frame.id, None)
            if answer is None or answer.done():
                return
            if isinstance(frame, wire.Launched):
                answer.set_result(frame)
            else:
                answer.set_exception(WardianError.from_envelope({"error": frame.error}))

    def _output(self, key: str, offset: int, data: bytes) -> None:
        followed = self._followed.get(key)
        if followed is None:
            return
        end = offset + len(data)
        if offset > followed.next_offset:
            log.warning("agent %s: %d bytes of output were gone from the ring", key, offset - followed.next_offset)
        fresh = data[max(followed.next_offset - offset, 0) :]  # what was handed on already is not again
        followed.next_offset = max(followed.next_offset, end)
        if fresh:
            followed.on_output(fresh)

    def _lost(self) -> None:
        self._acks.clear()  # nobody to tell
        for answer in self._launches.values():
            if not answer.done():
                answer.set_exception(server_ended())
        self._launches.clear()
        followed, self._followed = self._followed, {}
        self.on_server_lost()
        for each in followed.values():
            each.on_exit(None)

    def offset_of(self, key: str) -> int | None:
        """The next offset this host expects of `key` (what it handed on so far)."""
        followed = self._followed.get(key)
        return followed.next_offset if followed is not None else None


async def _open(home: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the home's server, started when none holds its lock. A server that holds
    it but does not answer is binding (started by another host a moment ago) or ending (no
    host, no agent left): it is waited for, then used or replaced."""
    path = os.fspath(server_process.socket_path(home))
    for _ in range(int(START_WAIT_SECONDS / BIND_WAIT_STEP_SECONDS)):
        with contextlib.suppress(FileNotFoundError, ConnectionRefusedError):
            return await asyncio.open_unix_connection(path)
        if server_process.running_server_pid(home) is None:
            await asyncio.to_thread(start_server, home)
        else:
            await asyncio.sleep(BIND_WAIT_STEP_SECONDS)
    return await asyncio.open_unix_connection(path)


def server_ended() -> WardianError:
    return WardianError(
        "request_failed",
        "the terminal server ended",
        "Run the command again: the host starts a new terminal server.",
        {"reason": "terminal_server_ended"},
    )


def start_server(home: Path, take_over: bool = False) -> None:
    """Start the home's terminal server detached and wait until it serves (or another one does);
    `take_over`: it takes the terminals of the running one, of another version."""
    endpoint.ensure_private_dir(server_process.log_path(home).parent)
    log_fd = open_unfollowed(server_process.log_path(home), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    argv = [sys.executable, "-m", "wardian_host.terminal.server", "--home", str(home)]
    argv += ["--take-over"] if take_over else []
    try:
        answer = start_detached(argv, "terminal server", START_WAIT_SECONDS, log_fd)
    finally:
        os.close(log_fd)
    if answer == server_process.READY:
        return
    try:
        error = WardianError.from_envelope(json.loads(answer))
    except ValueError:
        error = WardianError("generic", f"the terminal server did not start: {answer or 'it exited silently'}")
    if error.details.get("reason") != "already_running":
        raise error
