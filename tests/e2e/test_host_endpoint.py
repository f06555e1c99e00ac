"""The host process and its control endpoint: one per home, framing, identity, recovery."""

import asyncio
import json
import os
import socket
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from ptyprocess import PtyProcessUnicode

from wardian_core.clock import iso_days_ago
from wardian_core.control import endpoint
from wardian_core.control.protocol import MAX_FRAME_BYTES, PROTOCOL_VERSION
from wardian_core.db import events as event_rows
from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_host.testing.reaping import kill_host_and_terminal_server

WARDIAN = str(Path(sys.executable).parent / "wardian")


def test_second_host_for_the_same_home_is_refused(run_wardian) -> None:
    first = run_wardian("host", "start")
    assert first.returncode == 0, first.stderr
    pid = first.json()["host"]["pid"]
    second = run_wardian("host", "start")
    assert second.returncode == 1
    error = second.error()
    assert error["code"] == "request_failed" and str(pid) in error["message"]
    assert run_wardian("host", "status").json()["host"]["pid"] == pid


def _leave_stale_socket(home: Path) -> Path:
    path = endpoint.socket_path(home)
    endpoint.ensure_private_dir(path.parent)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: what a crashed host leaves
    return path


def test_stale_socket_falls_back_to_state_db_and_is_replaced_by_a_new_host(
    run_wardian, seed_agent, wardian_home: Path
) -> None:
    seed_agent(name="kept", status="idle")
    stale = _leave_stale_socket(wardian_home)
    listed = run_wardian("agent", "kept", "--fields", "name,status_source")
    assert listed.json()["agent"] == {"name": "kept", "status_source": "persisted"}
    assert run_wardian("host", "status").returncode == 6
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    assert stale.exists()
    assert run_wardian("agent", "kept", "--field", "status_source").stdout == "live\n"


class _FakeHost:
    """A socket at the home's endpoint that answers every request with `reply` (or never)."""

    def __init__(self, home: Path, reply: dict | None) -> None:
        self.path = endpoint.socket_path(home)
        endpoint.ensure_private_dir(self.path.parent)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(self.path))
        self.server.listen()
        self.reply = reply
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            while True:
                connection, _ = self.server.accept()
                self.connections.append(connection)
                request = json.loads(connection.makefile("rb").readline())
                if self.reply is not None:
                    connection.sendall(json.dumps(self.reply | {"id": request["id"]}).encode() + b"\n")
        except OSError:
            return

    def close(self) -> None:
        self.server.close()
        for connection in self.connections:
            connection.close()


@pytest.fixture
def fake_host(wardian_home: Path) -> Iterator[Callable[..., Any]]:
    hosts: list[_FakeHost] = []

    def make(reply: dict | None) -> _FakeHost:
        hosts.append(_FakeHost(wardian_home, reply))
        return hosts[-1]

    yield make
    for host in hosts:
        host.close()


def test_a_host_of_another_protocol_version_is_protocol_mismatch(run_wardian, fake_host) -> None:
    fake_host({"v": 999, "ok": True, "result": {}})
    result = run_wardian("host", "status")
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == "protocol_mismatch" and "restart" in error["hint"].lower()


def test_a_host_that_does_not_answer_is_control_endpoint_timeout(run_wardian, fake_host) -> None:
    fake_host(None)
    result = run_wardian("host", "status", env={"WARDIAN_CONTROL_TIMEOUT": "0.5"})
    assert result.returncode == 7
    assert result.error()["code"] == "control_endpoint_timeout"


def _raw_exchange(home: Path, payload: bytes) -> tuple[list[dict], bool]:
    """Send raw bytes; return the frames received and whether the host closed the connection."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(20)
    client.connect(str(endpoint.socket_path(home)))
    client.sendall(payload)
    client.shutdown(socket.SHUT_WR)
    frames = [json.loads(line) for line in client.makefile("rb") if line.strip()]
    client.close()
    return frames, True


def test_malformed_unknown_invalid_and_oversized_frames_are_refused_and_the_host_survives(
    run_wardian, wardian_home: Path
) -> None:
    assert run_wardian("host", "start").returncode == 0
    frames, _ = _raw_exchange(
        wardian_home,
        b"this is not json\n"
        + b'{"v": 2, "id": 2, "kind": "agent.teleport", "params": {}}\n'
        + b'{"v": 2, "id": 3, "kind": "agent.kill", "params": {"target": 7, "extra": true}}\n'
        + b'{"v": 2, "id": 4, "kind": "host.status", "params": {}}\n',
    )
    codes = [frame["error"]["code"] if not frame["ok"] else "ok" for frame in frames]
    assert codes == ["bad_request", "not_supported", "bad_request", "ok"]
    assert [frame["id"] for frame in frames] == [None, 2, 3, 4]  # one connection, several requests
    hint = frames[0]["error"]["hint"]  # its example frame, filled in, is one this host takes
    example = hint[hint.index("{") : hint.rindex("}") + 1]
    filled = example.replace("<integer>", "5").replace("<request kind>", "host.status").replace("{...}", "{}")
    answered, _ = _raw_exchange(wardian_home, filled.encode() + b"\n")
    assert json.loads(filled)["v"] == PROTOCOL_VERSION and answered[0]["ok"], answered
    oversized, _ = _raw_exchange(wardian_home, b'{"pad": "' + b"x" * (MAX_FRAME_BYTES + 10) + b'"}\n')
    assert len(oversized) == 1 and oversized[0]["error"]["code"] == "message_too_large"
    assert "8 MiB" in oversized[0]["error"]["message"] and oversized[0]["error"]["hint"]
    assert run_wardian("host", "status").returncode == 0


def test_bad_frames_get_a_readable_bad_request_and_the_connection_keeps_serving(
    run_wardian, wardian_home: Path
) -> None:
    assert run_wardian("host", "start").returncode == 0
    deep = b"[" * 990 + b"]" * 990
    frames, _ = _raw_exchange(
        wardian_home,
        b'{"v": 2, "id": 1, "kind": "agent.kill", "params": {"target": "\\ud800"}}\n'
        + b'{"v": 2, "id": 2, "kind": "agent.kill", "params": {"target": '
        + deep
        + b"}}\n"
        + b"\xff\xfe\n"
        + b'{"v": 2, "id": 4, "kind": "agent.wait", "params": {"target": "a", "until": "idle", "timeout": 0}}\n'
        + b'{"v": 2, "id": 5, "kind": "host.status", "params": {}}\n',
    )
    assert len(frames) == 5, frames
    errors = [frame["error"] for frame in frames[:4]]
    assert [error["code"] for error in errors] == ["bad_request"] * 4
    assert "params.target holds a lone surrogate" in errors[0]["message"] and frames[0]["id"] == 1
    assert "nests deeper than" in errors[1]["message"]
    assert "not UTF-8" in errors[2]["message"]
    assert errors[3]["message"] == "invalid agent.wait request: timeout: should be greater than 0"
    assert all(error["hint"] for error in errors) and "errors" not in errors[3]["details"]
    assert frames[4]["ok"] and frames[4]["id"] == 5

    killed = run_wardian("agent", "kill", "")
    assert killed.returncode == 1
    error = killed.error()
    assert (
        error["code"] == "bad_request" and error["message"] == "invalid agent.kill request: target: must not be empty"
    )
    assert "`wardian agent kill --help`" in error["hint"]
    log = (wardian_home / "logs" / "host.log").read_text()
    assert log.count("sent a bad frame") == 2  # once per connection
    assert "Traceback" not in log


def test_the_server_refuses_a_peer_of_another_uid(wardian_home: Path, monkeypatch) -> None:
    from wardian_host.daemon.control_server import ControlServer

    async def scenario() -> dict:
        server = ControlServer(wardian_home, {})
        await server.start()
        # The host now believes it runs as another user, so this test's real uid is foreign.
        monkeypatch.setattr(os, "getuid", lambda: 4242)
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        writer.write(b'{"v": 2, "id": 1, "kind": "host.status", "params": {}}\n')
        answer = json.loads(await reader.readline())
        try:
            closed = await reader.read() == b""
        except ConnectionResetError:  # closed with our request unread
            closed = True
        writer.close()
        monkeypatch.undo()
        await server.close()
        return answer | {"closed": closed}

    answer = asyncio.run(scenario())
    assert answer["ok"] is False and answer["error"]["code"] == "unauthorized" and answer["closed"]


def test_the_client_refuses_a_server_of_another_uid() -> None:
    with pytest.raises(WardianError) as caught:
        endpoint.check_same_user(peer_uid=4242, own_uid=os.getuid(), who="host")
    assert caught.value.code == "unauthorized"
    endpoint.check_same_user(peer_uid=os.getuid(), own_uid=os.getuid(), who="host")


def test_long_home_paths_use_a_private_fallback_socket(tmp_path: Path, run_wardian) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = endpoint.socket_path(deep)
    assert path.parent == endpoint.fallback_socket_dir() and len(os.fsencode(path)) < 108
    started = run_wardian("host", "start", env={"WARDIAN_HOME": str(deep)})
    try:
        assert started.returncode == 0, started.stderr
        assert started.json()["host"]["socket"] == str(path)
        assert path.stat().st_mode & 0o777 == 0o600
        assert path.parent.stat().st_mode & 0o777 == 0o700
    finally:
        run_wardian("host", "stop", env={"WARDIAN_HOME": str(deep)})


def test_caller_identity_follows_the_process_not_the_claimed_variable(
    spawn, wait_status, run_wardian, workspace: Path
) -> None:
    agent = spawn("asker", "bash", "-c", f"{WARDIAN} host whoami > whoami.json; echo asked; exec sleep 600")
    wait_status("asker", "idle")
    inside = json.loads((workspace / "whoami.json").read_text())["caller"]
    tie = "cgroup" if inside["cgroups"]["in_use"] else "ancestry"  # the agent's own cgroup, where there is one
    assert inside["agent"]["uuid"] == agent["uuid"] and inside["tie"] == tie
    claimed = run_wardian("host", "whoami", env={"WARDIAN_SESSION_ID": agent["uuid"]}).json()["caller"]
    assert (claimed["verification"], claimed["agent"]["uuid"], claimed["tie"]) == ("claimed", agent["uuid"], None)
    terminal = PtyProcessUnicode.spawn([WARDIAN, "host", "whoami"], env=dict(os.environ))
    screen = ""
    while True:
        try:
            screen += terminal.read(4096)
        except EOFError:
            break
    person = json.loads(screen.replace("\r\n", "\n"))["caller"]
    assert (person["verification"], person["agent"]) == ("none", None)


def test_a_real_host_prunes_a_seeded_home_on_start(run_wardian, seed_agent, wardian_home: Path) -> None:
    busy = seed_agent(name="busy")
    conn = open_writer(wardian_home)
    for index in range(1100):
        event_rows.add_event(conn, busy["uuid"], "output", {"n": index})
    event_rows.add_event(conn, busy["uuid"], "ancient", {}, at=iso_days_ago(45))
    conn.close()
    assert run_wardian("host", "start").returncode == 0
    check = sqlite3.connect(wardian_home / "state.db")
    kinds = [row[0] for row in check.execute("SELECT kind FROM events WHERE agent = ?", (busy["uuid"],))]
    assert len(kinds) == 1000 and "ancient" not in kinds


def test_recovery_after_kill_9_marks_survivors_headless_and_loses_nothing(
    spawn, wait_status, show, run_wardian, wardian_home: Path
) -> None:
    # The death of the host and its terminal server closes the PTYs: the hang-up ends "gone",
    # while "survivor" ignores it.
    spawn("survivor", "bash", "-c", "trap '' HUP; echo up; exec sleep 600")
    spawn("gone", "bash", "-c", "echo up; exec sleep 600")
    wait_status("survivor", "idle")
    wait_status("gone", "idle")
    survivor_pid, gone_pid = show("survivor")["pid"], show("gone")["pid"]
    gone_process = psutil.Process(gone_pid)
    kill_host_and_terminal_server(wardian_home)
    gone_process.wait(timeout=10)
    assert psutil.Process(survivor_pid).is_running()
    assert show("survivor")["status_source"] == "persisted"
    assert run_wardian("host", "start").returncode == 0, "a new host replaces the dead one's socket"
    survivor, gone = show("survivor"), show("gone")
    assert survivor["status"] == "headless" and survivor["pid"] == survivor_pid
    assert survivor["status_evidence"]["event"] == "recovery"
    assert gone["status"] == "off" and gone["pid"] is None
    integrity = sqlite3.connect(wardian_home / "state.db").execute("PRAGMA integrity_check").fetchone()[0]
    assert integrity == "ok"
    killed = run_wardian("agent", "kill", "survivor")
    assert killed.returncode == 0 and killed.json()["agent"]["status"] == "off"
    assert not psutil.pid_exists(survivor_pid) or psutil.Process(survivor_pid).status() == psutil.STATUS_ZOMBIE


def test_host_stop_ends_agents_and_logs_are_readable(spawn, wait_status, show, run_wardian) -> None:
    spawn("worker", "bash", "-c", "echo up; exec sleep 600")
    wait_status("worker", "idle")
    pid = show("worker")["pid"]
    stopped = run_wardian("host", "stop")
    assert stopped.returncode == 0 and stopped.json()["host"]["stopped"] is True
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert show("worker")["status"] == "off"
    logs = run_wardian("host", "logs", "--lines", "50")
    assert logs.returncode == 0 and "worker: starting -> idle" in logs.stdout
    assert run_wardian("host", "status").returncode == 6
