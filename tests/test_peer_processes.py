"""Who is at the other end of a control connection, on every platform the host knows.

The macOS and FreeBSD paths cannot run on Linux: their decoding is proven here on bytes
laid out as those kernels write them (offsets spelled out, not computed the way the code
does), and their dispatch through a socket that answers getsockopt as those kernels would.
"""

import asyncio
import errno
import json
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import psutil
import pytest
from ptyprocess import PtyProcess

from wardian_core import pty_backend
from wardian_core.control import endpoint
from wardian_core.control.models import NoParams
from wardian_core.errors import WardianError
from wardian_core.process_identity import ProcessIdentity
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.daemon import caller_identity
from wardian_host.daemon.caller_identity import PeerProcess
from wardian_host.daemon.control_server import ControlServer, Route
from wardian_host.output.buffer import OutputBuffer
from wardian_host.terminal import process_tree

# struct xucred as the C compiler lays it out: cr_version at 0, cr_uid at 4, cr_ngroups
# (a short) at 8, two bytes of padding, cr_groups[16] at 12: 76 bytes.
DARWIN_XUCRED = "=IIh2x16I"
# FreeBSD (64-bit): the same, then 4 bytes of padding so the union { void *; pid_t cr_pid; }
# sits at 80, 8 bytes long: 88 bytes.
FREEBSD_XUCRED = "=IIh2x16I4xi4x"
GROUPS = [20, 12, 61, 79, *[0] * 12]


class KernelSocket:
    """A socket that answers getsockopt with the bytes a kernel would, by (level, option)."""

    def __init__(self, answers: dict[tuple[int, int], bytes]) -> None:
        self.answers = answers
        self.asked: list[tuple[int, int, int]] = []

    def getsockopt(self, level: int, option: int, size: int) -> bytes:
        self.asked.append((level, option, size))
        return self.answers[level, option][:size]

    def peer(self) -> tuple[int, int, int]:
        return endpoint.peer_credentials(cast(socket.socket, self))

    def uid(self) -> int:
        return endpoint.peer_uid(cast(socket.socket, self))


def test_darwin_reads_uid_and_gid_from_xucred_and_the_pid_from_local_peerpid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    sock = KernelSocket(
        {
            (0, 0x001): struct.pack(DARWIN_XUCRED, 0, 501, 4, *GROUPS),
            (0, 0x002): struct.pack("=i", 4242),
        }
    )
    assert sock.peer() == (4242, 501, 20)
    assert (0, 0x001, 76) in sock.asked and (0, 0x002, 4) in sock.asked
    assert sock.uid() == 501
    assert sock.asked[-1][:2] == (0, 0x001), "the client reads the uid alone, never the pid"


def test_a_malformed_xucred_is_not_supported_never_a_wrong_answer() -> None:
    with pytest.raises(WardianError) as short:
        endpoint.decode_xucred(struct.pack(DARWIN_XUCRED, 0, 501, 1, *GROUPS)[:40])
    with pytest.raises(WardianError) as other_version:
        endpoint.decode_xucred(struct.pack(DARWIN_XUCRED, 1, 501, 1, *GROUPS))
    with pytest.raises(WardianError) as no_groups:
        endpoint.decode_xucred(struct.pack(DARWIN_XUCRED, 0, 501, 0, *GROUPS))
    assert {short.value.code, other_version.value.code, no_groups.value.code} == {"not_supported"}
    assert "40 bytes" in short.value.message and "version 1" in other_version.value.message


@pytest.mark.skipif(struct.calcsize("P") != 8, reason="the packed layout below is FreeBSD's on 64-bit systems")
def test_freebsd_reads_pid_uid_and_gid_from_one_xucred(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "freebsd14")
    sock = KernelSocket({(0, 0x001): struct.pack(FREEBSD_XUCRED, 0, 1001, 2, *GROUPS, 777)})
    assert sock.peer() == (777, 1001, 20)
    assert sock.asked == [(0, 0x001, 88)]


@pytest.mark.skipif(struct.calcsize("P") != 8, reason="the packed layout below is FreeBSD's on 64-bit systems")
def test_a_freebsd_older_than_13_gives_no_pid_and_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "freebsd12")
    sock = KernelSocket({(0, 0x001): struct.pack(FREEBSD_XUCRED, 0, 1001, 2, *GROUPS, 0)})
    with pytest.raises(WardianError) as refused:
        sock.peer()
    assert refused.value.code == "not_supported" and "FreeBSD 13" in refused.value.message
    assert sock.uid() == 1001  # a client there still checks its host


def test_linux_keeps_so_peercred() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert endpoint.peer_credentials(left) == (os.getpid(), os.getuid(), os.getgid())
        assert endpoint.peer_uid(left) == os.getuid()


def test_an_unknown_platform_is_not_supported_with_a_hint_to_the_platforms_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "sunos5")
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right, pytest.raises(WardianError) as refused:
        endpoint.peer_credentials(left)
    error = refused.value
    assert error.code == "not_supported" and error.exit_code == 1
    assert "sunos5" in error.message and "docs/platforms.md" in (error.hint or "")
    assert error.details["platform"] == "sunos5"


def test_a_host_on_an_unknown_platform_fails_its_start_and_binds_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = ControlServer(tmp_path / "home", {})
    monkeypatch.setattr(sys, "platform", "sunos5")
    with pytest.raises(WardianError) as refused:
        asyncio.run(server.start())
    assert refused.value.code == "not_supported"
    assert not server.path.exists()


def test_a_peer_gone_before_its_credentials_were_read_costs_the_server_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """macOS answers LOCAL_PEERPID with ENOTCONN once the peer closed: that connection is
    dropped, and counts against no limit."""
    real = endpoint.peer_credentials
    calls = 0

    def gone_first(sock: socket.socket) -> tuple[int, int, int]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN))
        return real(sock)

    monkeypatch.setattr(endpoint, "peer_credentials", gone_first)

    async def status(_: Any, __: Any) -> dict[str, Any]:
        return {"up": True}

    async def scenario() -> tuple[bytes, bytes, int]:
        server = ControlServer(tmp_path / "home", {"host.status": Route(NoParams, status)})
        await server.start()
        try:
            dropped = await asyncio.open_unix_connection(str(server.path))
            first = await dropped[0].read()
            reader, writer = await asyncio.open_unix_connection(str(server.path))
            writer.write(b'{"v": 2, "id": 1, "kind": "host.status", "params": {}}\n')
            answered = await reader.readline()
            writer.close()
            return first, answered, server._limits.connections
        finally:
            await server.close()

    first, answered, open_connections = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert first == b"" and json.loads(answered)["result"] == {"up": True}
    assert open_connections == 1, "the dropped connection took no place among the limits"


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    yield process
    process.kill()
    process.wait()


def _ended(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=30)


@pytest.mark.skipif(pty_backend.linux_means_missing() is not None, reason="no pidfd here")
def test_the_linux_backend_holds_the_peer_by_a_pidfd(
    monkeypatch: pytest.MonkeyPatch, child: subprocess.Popen[bytes]
) -> None:
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "linux")
    peer = PeerProcess.capture(child.pid, os.getuid())
    try:
        assert peer.pidfd is not None and peer.identity is None and peer.alive()
        _ended(child)
        assert not peer.alive()
    finally:
        peer.close()


def test_the_portable_backend_holds_the_peer_by_its_start_time(
    monkeypatch: pytest.MonkeyPatch, child: subprocess.Popen[bytes]
) -> None:
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")
    peer = PeerProcess.capture(child.pid, os.getuid())
    assert peer.pidfd is None and peer.identity is not None
    assert peer.identity.started == psutil.Process(child.pid).create_time()
    assert peer.alive()
    _ended(child)
    assert not peer.alive(), "a peer that exited is not alive"


def test_the_portable_backend_takes_a_reused_pid_for_another_process(child: subprocess.Popen[bytes]) -> None:
    """The pid still runs, but a process that started an hour later than the one that
    connected: the pid was reused, and the answer must not be used."""
    started = psutil.Process(child.pid).create_time()
    identity = ProcessIdentity(pid=child.pid, started=started - 3600, session=os.getsid(child.pid))
    assert not PeerProcess(child.pid, os.getuid(), identity=identity).alive()
    assert PeerProcess(child.pid, os.getuid(), identity=identity.model_copy(update={"started": started})).alive()


def test_a_peer_that_left_before_it_was_captured_is_never_alive(
    monkeypatch: pytest.MonkeyPatch, child: subprocess.Popen[bytes]
) -> None:
    _ended(child)
    for backend in pty_backend.BACKENDS if pty_backend.linux_means_missing() is None else ("ptyprocess",):
        monkeypatch.setenv("WARDIAN_PTY_BACKEND", backend)
        assert not PeerProcess.capture(child.pid, os.getuid()).alive()


class Agent:
    """What the classifier reads of a live agent: its pid row, its process identity, its terminal read."""

    def __init__(self, pid: int) -> None:
        self.row = {"pid": pid}
        self.process_identity = None  # an agent an older Wardian launched: no session to compare
        self.seen_terminal = None


def _tie(caller: int, agent: int) -> tuple[Any, str] | None:
    return caller_identity._find_tie(caller, {agent: cast(LiveAgent, Agent(agent))})


def test_a_caller_on_an_agents_terminal_outside_its_tree_is_tied_by_the_terminal() -> None:
    """Two siblings under one shell on a PTY: neither descends from the other, both have
    the PTY as their controlling terminal."""
    # psutil lists /dev's terminals once per process (a long-lived host's first look): before this PTY.
    psutil.Process().terminal()
    shell = PtyProcess.spawn(["sh", "-c", "sleep 600 & sleep 600 & echo forked; wait"])
    try:
        screen = b""
        while b"forked" not in screen:
            screen += shell.read(1024)
        agent, caller = sorted(child.pid for child in psutil.Process(shell.pid).children())
        terminal = caller_identity._terminal(agent)
        assert terminal is not None and terminal == caller_identity._terminal(shell.pid)
        tied = _tie(caller, agent)
        assert tied is not None and tied[1] == "terminal" and tied[0].row["pid"] == agent
        assert _tie(os.getpid(), agent) is None
    finally:
        shell.terminate(force=True)


@pytest.fixture
def terminals() -> Iterator[list[PtyProcess]]:
    """Processes each on a PTY of its own; ended after the test."""
    spawned: list[PtyProcess] = []
    yield spawned
    for process in spawned:
        process.terminate(force=True)


def _agent_on_a_pty(terminals: list[PtyProcess], agent: LiveAgent | None = None) -> LiveAgent:
    """An agent (or `agent` relaunched) whose process leads a new session on a new PTY, as a launch records it."""
    process = PtyProcess.spawn(["cat"])
    terminals.append(process)
    identity = process_tree.capture(process.pid, os.getsid(process.pid), token=None).stored()
    row = {"uuid": f"u-{process.pid}", "name": f"a{process.pid}", "status": "idle"}
    agent = agent or LiveAgent(row=cast(Any, row), buffer=OutputBuffer(1024), is_running=True)
    agent.row.update(cast(Any, {"pid": process.pid, "process_identity": identity}))
    return agent


def test_a_persons_callers_read_each_agents_terminal_once_per_agent_process(
    monkeypatch: pytest.MonkeyPatch, terminals: list[PtyProcess]
) -> None:
    """Every request used to read the terminal of every live agent; an agent's PTY is its
    process's for life, so it is read once per process, and anew for a relaunched one."""
    agents = [_agent_on_a_pty(terminals) for _ in range(3)]
    terminals.append(person := PtyProcess.spawn(["cat"]))  # a person's terminal: a PTY no agent runs on
    real = caller_identity._terminal
    reads: dict[int, int] = {}

    def counted(pid: int) -> int | str | None:
        reads[pid] = reads.get(pid, 0) + 1
        return real(pid)

    monkeypatch.setattr(caller_identity, "_terminal", counted)
    peer = PeerProcess.capture(person.pid, os.getuid())
    try:
        for _ in range(4):
            assert caller_identity.classify_caller(peer, agents).verification == "none"
        pids = [process.pid for process in terminals[:3]]
        assert [reads.get(pid) for pid in pids] == [1, 1, 1]
        before = real(pids[0])
        _agent_on_a_pty(terminals, agents[0])
        relaunched = terminals[-1].pid
        assert caller_identity.classify_caller(peer, agents).verification == "none"
        assert reads.get(relaunched) == 1, "the new process's terminal is read"
        after = caller_identity._agent_terminal(relaunched, agents[0])
        assert after == real(relaunched) and after != before, "and seen, not the old one's"
    finally:
        peer.close()


def test_a_callers_lineage_is_psutils_parents_and_stops_at_a_reused_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    me = psutil.Process()
    assert list(caller_identity._lineage(me.pid)) == [me.pid, *(parent.pid for parent in me.parents())]
    if sys.platform.startswith("linux"):
        real = caller_identity._linux_stat
        parent = me.ppid()

        def parent_started_later(pid: int) -> Any:
            stat = real(pid)
            return stat._replace(started=10**15) if pid == parent and stat is not None else stat

        monkeypatch.setattr(caller_identity, "_linux_stat", parent_started_later)
        assert list(caller_identity._lineage(me.pid)) == [me.pid], "a parent younger than its child is another process"


@pytest.mark.parametrize(("platform", "longest"), [("linux", 107), ("darwin", 103), ("freebsd14", 103)])
def test_a_home_whose_socket_path_overflows_this_systems_sun_path_falls_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, platform: str, longest: int
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "runtime").mkdir(mode=0o700)
    fits, overflows = (_home_with_socket_path_of(tmp_path, size) for size in (longest, longest + 1))
    assert endpoint.socket_path(fits) == endpoint.primary_socket_path(fits)
    assert endpoint.socket_path(overflows).parent == tmp_path / "runtime" / "wardian"


def _home_with_socket_path_of(tmp_path: Path, size: int) -> Path:
    """A home whose primary socket path is `size` bytes long."""
    base = tmp_path / "h"
    suffix_bytes = len(os.fsencode(endpoint.primary_socket_path(base))) - len(os.fsencode(base))
    return Path(str(base) + "x" * (size - suffix_bytes - len(os.fsencode(base))))
