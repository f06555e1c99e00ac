"""Agents outlive the host: its terminal server keeps their PTYs across a restart, a crash of
the host, and its own death is heard — through the real `wardian` command and real PTYs."""

import json
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from host_restarts import next_host, status_changes
from prompted_shell import prompted_bash

from wardian_core.control import endpoint
from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone
from wardian_host.terminal.server.process import running_server_pid

# Prints "line-N" and a prompt for each line typed, and one right away; the prompt tells its turns.
COUNTER = prompted_bash('n=0; while :; do printf "line-%d\\n> " $n; read x || break; n=$((n+1)); done')


@pytest.fixture
def spawn_counter(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]]
) -> Callable[[str], None]:
    def spawn(name: str) -> None:
        spawned = run_wardian(*generic_spawn_args(name, *COUNTER))
        assert spawned.returncode == 0, spawned.stderr

    return spawn


def _watch_text(run_wardian: Callable[..., Any], name: str, since: int) -> dict[str, Any]:
    watched = run_wardian("agent", "watch", name, "--since", str(since))
    assert watched.returncode == 0, watched.stderr
    return json.loads(watched.stdout)["watch"]


def _say(run_wardian: Callable[..., Any], name: str, text: str) -> None:
    """Type a line to the counter and wait for the turn it causes to end (its next line printed)."""
    sent = run_wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", "20s")
    assert sent.returncode == 0, sent.stderr


def test_host_restart_keeps_agents_live_interactive_and_their_cursors(
    spawn_counter, wait_status, show, run_wardian
) -> None:
    spawn_counter("counter")
    wait_status("counter", "idle")
    _say(run_wardian, "counter", "one")
    cursor = _watch_text(run_wardian, "counter", 0)["cursor"]
    before = show("counter", "status,status_evidence,pid")
    server = running_server_pid(Path(os.environ["WARDIAN_HOME"]))
    old_host = run_wardian("host", "status").json()["host"]["pid"]

    restarted = run_wardian("host", "restart")
    assert restarted.returncode == 0, restarted.stderr
    host = json.loads(restarted.stdout)["host"]
    assert host["pid"] != old_host and host["restarted_from"] == old_host
    assert host["terminal_server"]["pid"] == server  # the same server: nothing was relaunched
    after = show("counter", "status,status_evidence,pid")
    assert after == before and after["status"] != "headless"  # status and evidence kept
    assert psutil.Process(before["pid"]).is_running()

    _say(run_wardian, "counter", "two")  # interactive again
    whole = _watch_text(run_wardian, "counter", 0)["output"]
    assert [whole.count(f"line-{n}") for n in range(3)] == [1, 1, 1]  # nothing lost or doubled
    assert _watch_text(run_wardian, "counter", cursor)["output"].count("line-1") == 0  # the old cursor holds


def test_a_quiet_time_agent_typed_to_right_after_a_restart_takes_the_turn(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], wait_status, show
) -> None:
    echo = ["bash", "--norc", "--noprofile", "-c", 'while read x; do echo "got-$x"; done']  # no prompt: quiet time
    spawned = run_wardian(*generic_spawn_args("quiet", "--provider-setting", "idle_quiet_seconds=3", "--", *echo))
    assert spawned.returncode == 0, spawned.stderr
    wait_status("quiet", "idle")
    assert run_wardian("host", "restart").returncode == 0
    # Typed within a quiet time of the adoption, which a new parser once took for start-up output.
    sent = run_wardian("send", "one", "--to", "quiet", "--wait-until", "idle", "--timeout", "20s")
    assert sent.returncode == 0, sent.stderr
    uuid = show("quiet", "uuid")["uuid"]
    changes = status_changes(Path(os.environ["WARDIAN_HOME"]), uuid)
    assert changes[-2:] == [("processing", "turn_started"), ("idle", "turn_completed")]


def test_a_killed_host_leaves_agents_to_the_next_one(spawn_counter, run_wardian, show, wait_status) -> None:
    home = Path(os.environ["WARDIAN_HOME"])
    spawn_counter("counter")
    wait_status("counter", "idle")
    host = running_host_pid(home)
    assert host is not None
    os.kill(host, signal.SIGKILL)
    assert wait_until_gone(host, 10)
    assert run_wardian("host", "start").returncode == 0
    assert show("counter", "status")["status"] != "headless"
    _say(run_wardian, "counter", "after the crash")
    assert _watch_text(run_wardian, "counter", 0)["output"].count("line-0") == 1


def test_a_killed_server_ends_its_agents_with_evidence_and_a_new_spawn_works(
    spawn_counter, run_wardian, show, wait_status
) -> None:
    home = Path(os.environ["WARDIAN_HOME"])
    spawn_counter("counter")
    wait_status("counter", "idle")
    server = running_server_pid(home)
    assert server is not None and server > 0
    os.kill(server, signal.SIGKILL)
    ended = run_wardian("agent", "wait", "counter", "--until", "off", "--timeout", "20s")
    assert ended.returncode == 0, ended.stderr
    evidence = show("counter", "status,status_evidence")["status_evidence"]
    assert evidence["rule"] == "terminal server ended"  # its bash ended on the hangup, as in a closed window
    spawn_counter("second")  # a new server is started for it
    wait_status("second", "idle")
    assert "line-0" in _watch_text(run_wardian, "second", 0)["output"]
    assert running_server_pid(home) not in (None, server)


def test_host_stop_ends_agents_and_the_terminal_server(spawn_counter, run_wardian, show) -> None:
    home = Path(os.environ["WARDIAN_HOME"])
    spawn_counter("counter")
    agent = show("counter", "pid")
    server = running_server_pid(home)
    assert server is not None
    stopped = run_wardian("host", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert wait_until_gone(server, 10) and wait_until_gone(agent["pid"], 10)


def test_a_cli_of_another_protocol_version_can_still_restart_the_host(
    spawn_counter, run_wardian, wait_status, show, wardian_home: Path
) -> None:
    spawn_counter("counter")
    wait_status("counter", "idle")
    host = running_host_pid(wardian_home)
    assert host is not None
    # What a newer CLI's `host restart` sends first: host.stop, in a protocol this host does not speak.
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(20)
    client.connect(str(endpoint.socket_path(wardian_home)))
    frame = {"v": PROTOCOL_VERSION + 1, "id": 1, "kind": "host.stop", "params": {"keep_agents": True}}
    client.sendall(json.dumps(frame).encode() + b"\n")
    answer = json.loads(client.makefile("rb").readline())
    client.close()
    assert answer["ok"] and answer["result"]["agents_kept"] is True
    assert wait_until_gone(host, 20)
    assert run_wardian("host", "start").returncode == 0
    assert show("counter", "status")["status"] == "idle"  # adopted: the restart cost the agent nothing


def test_a_restart_that_ran_out_of_time_still_leaves_a_host_once_the_old_one_ends(
    spawn_counter, run_wardian, wait_status, show, wardian_home: Path
) -> None:
    spawn_counter("counter")
    wait_status("counter", "idle")
    old = running_host_pid(wardian_home)
    assert old is not None
    os.kill(old, signal.SIGSTOP)  # a host that does not get to stop in the time the CLI is given
    try:
        restarted = run_wardian("host", "restart", env={"WARDIAN_CONTROL_TIMEOUT": "1"})
        assert restarted.error()["code"] == "control_endpoint_timeout"
        assert "the next host serves once it is gone" in restarted.error()["message"]
    finally:
        os.kill(old, signal.SIGKILL)  # it ends at last (SIGKILL reaches a stopped process)
    new = next_host(wardian_home, old)  # started by the CLI, with its environment, after the old one's end
    assert new != old
    assert show("counter", "status")["status"] == "idle"  # adopted by the next host
