"""The terminal server and its host-side client: Wardian's own plumbing, in the test's process
(the server built inside the test's loop, as uvicorn's tests do), on both POSIX backends."""

import asyncio
import fcntl
import os
import signal
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from wardian_core import paths
from wardian_core import terminal_wire as wire
from wardian_core.errors import WardianError
from wardian_core.process_locks import take_exclusive
from wardian_core.pty_backend import BACKENDS, Backend
from wardian_host.daemon.host_lock import wait_until_gone
from wardian_host.terminal import server_client
from wardian_host.terminal.server import handover
from wardian_host.terminal.server import process as server_process
from wardian_host.terminal.server.framing import read_frame
from wardian_host.terminal.server.host_writer import FLUSH_BYTES
from wardian_host.terminal.server.ring import OutputRing
from wardian_host.terminal.server.server import HIGH_WATER_BYTES, READ_BATCH_BYTES, TerminalServer
from wardian_host.terminal.server_client import ServerPtys, start_server
from wardian_host.testing.reaping import reap_home

WAIT = 20.0


@pytest.fixture(autouse=True)
def reaped(wardian_home: Path) -> Iterator[None]:
    yield
    reap_home(wardian_home)  # a server a failed test started


class Heard:
    """What one terminal told the client: its output in order, and its exit."""

    def __init__(self) -> None:
        self.output = bytearray()
        self.exit_code: int | None = None
        self.exited = asyncio.Event()
        self._grew = asyncio.Event()

    def on_output(self, data: bytes) -> None:
        self.output += data
        self._grew.set()

    def on_exit(self, exit_code: int | None) -> None:
        self.exit_code = exit_code
        self.exited.set()

    async def until(self, text: bytes) -> None:
        async with asyncio.timeout(WAIT):
            while text not in self.output:
                self._grew.clear()
                await self._grew.wait()


def run_with_server(home: Path, backend: Backend, scenario: Callable[[TerminalServer], Awaitable[None]]) -> None:
    async def main() -> None:
        paths.ensure_home(home)
        server = TerminalServer(server_process.socket_path(home), backend, ring_bytes=64 * 1024)
        await server.start()
        try:
            await scenario(server)
        finally:
            await server.close()

    asyncio.run(main())


async def launch(client: ServerPtys, key: str, script: str, heard: Heard) -> int:
    pid, _ = await client.open(
        key, ["sh", "-c", script], dict(os.environ), Path.cwd(), (24, 80), heard.on_output, heard.on_exit
    )
    return pid


def test_the_ring_addresses_output_by_absolute_offset_and_says_where_it_starts() -> None:
    ring = OutputRing(capacity=4)
    ring.append(b"0123")
    ring.append(b"4567")
    assert (ring.start_offset, ring.end_offset) == (0, 8)  # up to twice the capacity is kept
    ring.append(b"89a")
    assert (ring.start_offset, ring.end_offset) == (7, 11)  # then trimmed back to the capacity
    assert ring.read_from(8) == (8, b"89a")
    assert ring.read_from(0) == (7, b"789a")  # what is gone is not invented
    assert ring.read_from(99) == (11, b"")
    assert ring.pieces_from(0) == [(7, b"7"), (8, b"89a")]  # each as it was appended, the first cut


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_agent_on_the_server_prints_takes_input_and_reports_its_exit(backend: Backend, wardian_home: Path) -> None:
    async def scenario(server: TerminalServer) -> None:
        client = await ServerPtys.connect(wardian_home)
        heard = Heard()
        await launch(client, "a", "echo ready; read line; echo got:$line; exit 7", heard)
        await heard.until(b"ready")
        client.write("a", b"hello\n")
        await heard.until(b"got:hello")
        async with asyncio.timeout(WAIT):
            await heard.exited.wait()
        assert heard.exit_code == 7
        await client.close()

    run_with_server(wardian_home, backend, scenario)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_host_follows_on_from_its_offset_without_a_byte_lost_or_repeated(
    backend: Backend, wardian_home: Path
) -> None:
    async def scenario(server: TerminalServer) -> None:
        first = await ServerPtys.connect(wardian_home)
        heard = Heard()
        await launch(first, "a", "echo one; read x; echo two; read y; echo three:$y", heard)
        await heard.until(b"one")
        offset = first.offset_of("a")
        assert offset == len(heard.output)
        first.parsed("a", offset)  # what the next host need not report again
        await first.close()  # the host dies; the agent goes on printing while nobody listens
        second = await ServerPtys.connect(wardian_home)
        [state] = second.welcome.terminals
        assert (state.key, state.exited, state.acked_offset, state.end_offset) == ("a", False, offset, offset)
        again = Heard()
        assert offset is not None
        second.follow("a", offset, again.on_output, again.on_exit)
        second.write("a", b"\n")
        await again.until(b"two")
        second.write("a", b"more\n")
        await again.until(b"three:more")
        whole = bytes(heard.output + again.output)
        assert whole.count(b"one") == 1 and whole.count(b"two") == 1  # nothing doubled across hosts
        assert not again.output.startswith(b"one")
        await second.close()

    run_with_server(wardian_home, backend, scenario)


def test_a_second_host_is_refused_while_one_is_connected(wardian_home: Path) -> None:
    async def scenario(server: TerminalServer) -> None:
        first = await ServerPtys.connect(wardian_home)
        with pytest.raises(WardianError) as refused:
            await ServerPtys.connect(wardian_home)
        assert refused.value.details["reason"] == "host_connected"
        await first.close()

    run_with_server(wardian_home, "linux", scenario)


def test_a_host_of_another_protocol_version_is_refused_with_protocol_mismatch(wardian_home: Path) -> None:
    async def scenario(server: TerminalServer) -> None:
        reader, writer = await asyncio.open_unix_connection(os.fspath(server.path))
        writer.write(wire.encode(wire.Hello(v=wire.TERMINAL_PROTOCOL_VERSION + 1)))
        answer, _ = await read_frame(reader, wire.decode_server)
        assert isinstance(answer, wire.Refused)
        assert answer.error["code"] == "protocol_mismatch" and "wardian host restart" in answer.error["hint"]
        writer.close()

    run_with_server(wardian_home, "linux", scenario)


def test_the_socket_is_owner_only(wardian_home: Path) -> None:
    async def scenario(server: TerminalServer) -> None:
        assert server.path.stat().st_mode & 0o777 == 0o600

    run_with_server(wardian_home, "linux", scenario)


def test_a_slow_host_holds_the_agent_back_instead_of_growing_the_server(wardian_home: Path) -> None:
    async def scenario(server: TerminalServer) -> None:
        client = await ServerPtys.connect(wardian_home)
        heard = Heard()
        # 64 MiB through a host that reads nothing for a while: the server must pause the PTY.
        await launch(client, "flood", "head -c 67108864 /dev/zero; echo; echo done", heard)
        client._reading.cancel()  # the host stops reading its socket
        await asyncio.sleep(0)
        writer = server._host.writer if server._host is not None else None
        assert writer is not None
        async with asyncio.timeout(WAIT):
            # The server signals no event when it starts draining: polled, within WAIT.
            while server._host is not None and server._host.draining is None:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        queued = writer.transport.get_write_buffer_size()
        # The mark, then what one read sends: the output gathered before it, the read, their headers.
        assert 0 < queued <= HIGH_WATER_BYTES + FLUSH_BYTES + READ_BATCH_BYTES + 1024
        await client.close()

    run_with_server(wardian_home, "linux", scenario)


def test_the_server_process_is_started_once_and_its_death_is_heard_as_exits(wardian_home: Path) -> None:
    async def scenario() -> None:
        paths.ensure_home(wardian_home)
        client = await ServerPtys.connect(wardian_home)  # none runs: it starts one
        lost = asyncio.Event()
        client.on_server_lost = lost.set
        heard = Heard()
        await launch(client, "a", "echo up; sleep 600", heard)
        await heard.until(b"up")
        pid = server_process.running_server_pid(wardian_home)
        assert pid is not None and pid > 0 and pid == client.welcome.pid
        os.kill(pid, signal.SIGKILL)
        async with asyncio.timeout(WAIT):
            await lost.wait()
            await heard.exited.wait()
        assert heard.exit_code is None
        await client.close()
        again = await ServerPtys.connect(wardian_home)  # a new one starts
        assert again.welcome.pid != pid and again.welcome.terminals == []
        again.shutdown()
        await again.close()

    asyncio.run(scenario())


# What a server process must never import: it lives as long as any agent and must stay small
# (pydantic alone was a third of its memory; _ssl and _hashlib map OpenSSL's libraries). Not
# `ssl` itself: asyncio tries it, and `-X importtime` logs a failed import too.
NOT_IN_THE_SERVER = {"pydantic", "pydantic_core", "_ssl", "_hashlib"}


def _imported(log: Path) -> list[str]:
    """The modules `-X importtime` logged (`import time: self | cumulative | name`), in order:
    each one imported, and each one tried that failed."""
    lines = log.read_text().splitlines()
    return [line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:") and "|" in line]


def test_a_connection_a_dying_server_took_is_tried_again_with_the_server_that_runs(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed server's listening socket may still take a connection that then breaks: the
    hello meets a broken pipe (seen in CI right after a SIGKILL)."""
    opened = server_client._open
    broken: list[socket.socket] = []

    async def first_one_broken(home: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if broken:
            return await opened(home)
        ours, theirs = socket.socketpair(socket.AF_UNIX)
        theirs.close()  # the dying server's end, gone
        broken.append(ours)
        return await asyncio.open_unix_connection(sock=ours)

    async def scenario() -> None:
        paths.ensure_home(wardian_home)
        client = await ServerPtys.connect(wardian_home)
        assert broken and client.welcome.pid == server_process.running_server_pid(wardian_home)
        client.shutdown()
        await client.close()

    monkeypatch.setattr(server_client, "_open", first_one_broken)
    asyncio.run(scenario())


def test_a_server_process_serves_and_hands_over_without_importing_pydantic_or_ssl(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # each server logs every import of its life

    async def scenario() -> None:
        paths.ensure_home(wardian_home)
        client = await ServerPtys.connect(wardian_home)
        heard = Heard()
        await launch(client, "a", "echo up; read x; echo got:$x", heard)
        await heard.until(b"up")
        await client.close()
        await asyncio.to_thread(start_server, wardian_home, True)  # a new server takes "a" over
        assert await asyncio.to_thread(wait_until_gone, client.welcome.pid, WAIT)
        again = await ServerPtys.connect(wardian_home)
        again.follow("a", len(heard.output), heard.on_output, heard.on_exit)
        again.write("a", b"x\n")
        await heard.until(b"got:x")
        async with asyncio.timeout(WAIT):
            await heard.exited.wait()
        again.shutdown()
        await again.close()
        assert await asyncio.to_thread(wait_until_gone, again.welcome.pid, WAIT)

    asyncio.run(scenario())
    imported = _imported(server_process.log_path(wardian_home))
    assert imported.count("wardian_host.terminal.server.server") == 2  # both servers' imports were logged
    assert NOT_IN_THE_SERVER.isdisjoint(imported), sorted(NOT_IN_THE_SERVER.intersection(imported))


def test_two_hosts_starting_at_once_get_one_server_and_only_one_of_them_adopts(wardian_home: Path) -> None:
    async def scenario() -> None:
        paths.ensure_home(wardian_home)
        answers = await asyncio.gather(
            ServerPtys.connect(wardian_home), ServerPtys.connect(wardian_home), return_exceptions=True
        )
        clients = [answer for answer in answers if isinstance(answer, ServerPtys)]
        refusals = [answer for answer in answers if isinstance(answer, WardianError)]
        assert len(clients) == 1, answers
        assert [error.details.get("reason") for error in refusals] == ["host_connected"], answers
        assert server_process.running_server_pid(wardian_home) == clients[0].welcome.pid
        clients[0].shutdown()
        await clients[0].close()

    asyncio.run(scenario())


def test_a_server_left_with_no_host_and_no_live_terminal_ends(wardian_home: Path) -> None:
    async def scenario() -> int:
        paths.ensure_home(wardian_home)
        client = await ServerPtys.connect(wardian_home)
        pid = client.welcome.pid
        await client.close()  # a host that stops without `shutdown`, or dies, holding no agent
        return pid

    pid = asyncio.run(scenario())
    assert wait_until_gone(pid, WAIT)


# -- an upgrade: one server hands its terminals to another ------------------------------------

HANDED_SCRIPT = "echo one; read x; echo two:$x; read y; echo three:$y"


async def _old_server(home: Path, backend: Backend) -> TerminalServer:
    paths.ensure_home(home)
    lock_fd = take_exclusive(server_process.lock_path(home))
    assert isinstance(lock_fd, int)
    os.ftruncate(lock_fd, 0)  # not this test's pid: the reaping fixture would kill the test
    server = TerminalServer(server_process.socket_path(home), backend, ring_bytes=64 * 1024, lock_fd=lock_fd)
    await server.start()
    return server


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_server_takes_every_terminal_at_its_offsets_and_the_old_one_ends(
    backend: Backend, wardian_home: Path
) -> None:
    async def scenario() -> None:
        old = await _old_server(wardian_home, backend)
        host = await ServerPtys.connect(wardian_home)
        heard, other = Heard(), Heard()
        pid = await launch(host, "a", HANDED_SCRIPT, heard)
        await launch(host, "b", "read z; exit 3", other)
        await heard.until(b"one")
        host.write("a", b"first\n")
        await heard.until(b"two:first")
        parsed = host.offset_of("a")
        assert parsed is not None
        host.parsed("a", parsed)
        await host.close()  # an upgrade: the old host stopped, keeping its agents
        raw = await ServerPtys.connect(wardian_home)  # b exits while no host hears it: kept, not released
        raw._reading.cancel()
        raw.write("b", b"\n")
        async with asyncio.timeout(WAIT):
            # A record's exit has no event of its own: polled, within WAIT.
            while not old._records["b"].exited:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        await raw.close()

        received = await asyncio.to_thread(handover.take_over, old.path)
        async with asyncio.timeout(WAIT):
            await old.stopped.wait()  # it handed everything over and ends
        await old.close()
        new = TerminalServer(old.path, backend, ring_bytes=64 * 1024, lock_fd=received.lock_fd)
        await new.start(received)
        try:
            again = await ServerPtys.connect(wardian_home)
            states = {state.key: state for state in again.welcome.terminals}
            assert states["a"].pid == pid and not states["a"].exited
            assert (states["a"].start_offset, states["a"].acked_offset) == (0, parsed)
            assert states["b"].exited and states["b"].exit_code == 3
            replayed = Heard()
            again.follow("a", 0, replayed.on_output, replayed.on_exit)
            again.write("a", b"second\n")  # the PTY it types into came over the socket
            await replayed.until(b"three:second")
            assert bytes(replayed.output).startswith(bytes(heard.output))  # the ring came whole
            assert replayed.output.count(b"two:first") == 1 and replayed.output.count(b"one") == 1
            async with asyncio.timeout(WAIT):
                await replayed.exited.wait()
            assert replayed.exit_code is None  # another process's child: its code is not ours to read
            with pytest.raises(BlockingIOError):  # the lock came with it: still held
                fcntl.flock(os.open(server_process.lock_path(wardian_home), os.O_RDONLY), fcntl.LOCK_EX | fcntl.LOCK_NB)
            again.shutdown()
            await again.close()
        finally:
            await new.close()
            os.ftruncate(received.lock_fd, 0)  # the new server wrote its pid: this test's

    asyncio.run(scenario())


def test_a_server_refuses_to_hand_over_while_a_host_is_connected(wardian_home: Path) -> None:
    async def scenario() -> None:
        old = await _old_server(wardian_home, "linux")
        host = await ServerPtys.connect(wardian_home)
        try:
            with pytest.raises(Exception) as refused:
                await asyncio.to_thread(handover.take_over, old.path)
            assert getattr(refused.value, "details", {}).get("reason") == "host_connected"
            assert not old.stopped.is_set()
        finally:
            await host.close()
            await old.close()

    asyncio.run(scenario())


def test_a_server_that_cannot_hand_over_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "old.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.fspath(path))
    listener.listen(1)

    def older_server() -> None:  # one that predates handovers: an unknown frame ends the connection
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.close()

    serving = threading.Thread(target=older_server)
    serving.start()
    with pytest.raises(WardianError) as failed:
        handover.take_over(path)
    serving.join()
    listener.close()
    assert failed.value.code == "request_failed" and failed.value.details == {"reason": "handover_failed"}
    assert "wardian host stop" in (failed.value.hint or "")
