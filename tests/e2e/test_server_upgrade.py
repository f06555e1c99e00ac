"""An upgrade of Wardian that brings a terminal server of a new protocol version: the host of the
new version has the running server hand every PTY to a server of its own (SCM_RIGHTS), and
every agent goes on — same process, its output once, taking input. Through the real `wardian`."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from prompted_shell import prompted_bash

from wardian_core import terminal_wire as wire
from wardian_host.agents.lifecycle import EXIT_CODE_UNKNOWN
from wardian_host.daemon.host_lock import wait_until_gone
from wardian_host.terminal.server.process import running_server_pid

# Prints "line-N" and a prompt for each line typed, and one right away; the prompt tells its turns.
# "quit" ends it on its own, with a code the new server cannot read: it is not that server's child.
COUNTER = prompted_bash(
    'n=0; while :; do printf "line-%d\\n> " $n; read x || break; [ "$x" = quit ] && exit 0; n=$((n+1)); done'
)
NEXT_VERSION = {"WARDIAN_TEST_TERMINAL_PROTOCOL_STEP": "1"}  # the upgraded Wardian's host and server


def _say(run_wardian: Callable[..., Any], name: str, text: str) -> None:
    sent = run_wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", "30s")
    assert sent.returncode == 0, sent.stderr


def _output(run_wardian: Callable[..., Any], name: str) -> str:
    watched = run_wardian("agent", "watch", name, "--since", "0")
    assert watched.returncode == 0, watched.stderr
    return str(json.loads(watched.stdout)["watch"]["output"])


def test_a_host_of_a_new_terminal_protocol_takes_every_agent_live_from_the_old_server(
    run_wardian, generic_spawn_args, wait_status, show, wardian_home: Path
) -> None:
    names = ["first", "second"]
    for name in names:
        spawned = run_wardian(*generic_spawn_args(name, *COUNTER))
        assert spawned.returncode == 0, spawned.stderr
    for name in names:
        wait_status(name, "idle")
        _say(run_wardian, name, "one")
    pids = {name: show(name, "pid")["pid"] for name in names}
    old_server = running_server_pid(wardian_home)
    assert old_server is not None

    restarted = run_wardian("host", "restart", env=NEXT_VERSION)
    assert restarted.returncode == 0, restarted.stderr
    server = json.loads(restarted.stdout)["host"]["terminal_server"]
    assert server["pid"] != old_server and server["protocol"] == wire.TERMINAL_PROTOCOL_VERSION + 1
    assert wait_until_gone(old_server, 20)  # it handed everything over and ended
    for name in names:
        assert show(name, "pid")["pid"] == pids[name] and psutil.Process(pids[name]).is_running()
        assert show(name, "status")["status"] == "idle"  # adopted, not headless
        _say(run_wardian, name, "two")  # its PTY takes input from the new server
        output = _output(run_wardian, name)
        assert [output.count(f"line-{n}") for n in range(3)] == [1, 1, 1], output  # once each, before and after
    assert running_server_pid(wardian_home) == server["pid"]
    run_wardian("send", "quit", "--to", "second")
    wait_status("second", "off")  # an exit whose code is unknown is no failure
    assert show("second", "status_evidence")["status_evidence"]["rule"] == EXIT_CODE_UNKNOWN
    stopped = run_wardian("host", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert all(wait_until_gone(pid, 20) for pid in pids.values())  # the new server ends them as its own
