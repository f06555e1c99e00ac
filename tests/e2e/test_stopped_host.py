"""A host that stopped answering (SIGSTOP): reads answer from state.db after a short deadline,
saying so, and a request the CLI gave up on is not carried out when the host wakes."""

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from wardian_core.control.client import ControlClient
from wardian_core.errors import WardianError
from wardian_host.daemon.host_lock import running_host_pid


@pytest.fixture
def stopped_host(wardian_home: Path) -> Iterator[int]:
    """SIGSTOP the running host for the test's body; it is woken (SIGCONT) however the test ends."""
    pid = running_host_pid(wardian_home)
    assert pid and pid > 0
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.fixture
def steady(spawn) -> dict:
    return spawn("steady", "sleep", "600")


def test_reads_answer_from_state_db_when_the_host_is_stopped_and_say_so(steady, stopped_host: int, run_wardian) -> None:
    listed = run_wardian("agent", "list", "--fields", "name,status_source")
    assert listed.returncode == 0, listed.stderr
    answer = listed.json()
    assert answer["agents"] == [{"name": "steady", "status_source": "persisted"}]
    assert answer["notice"]["reason"] == "host_not_answering" and answer["notice"]["host_pid"] == stopped_host
    assert "state.db" in answer["notice"]["message"] and answer["notice"]["hint"]
    bare = run_wardian("agent", "steady", "--field", "status_source")
    assert (bare.returncode, bare.stdout) == (0, "persisted\n")
    assert json.loads(bare.stderr)["notice"]["reason"] == "host_not_answering"  # stdout stays bare


def test_a_running_host_gets_no_notice(steady, run_wardian) -> None:
    answer = run_wardian("agent", "list", "--fields", "name,status_source").json()
    assert answer == {"schema": 1, "agents": [{"name": "steady", "status_source": "live"}]}


def test_a_kill_that_timed_out_is_not_carried_out_when_the_host_wakes(
    steady, show, wardian_home: Path, run_wardian
) -> None:
    agent_pid = show("steady")["pid"]
    host_pid = running_host_pid(wardian_home)
    assert host_pid and host_pid > 0
    with ControlClient.connect(wardian_home) as client:
        os.kill(host_pid, signal.SIGSTOP)
        try:
            with pytest.raises(WardianError) as caught:
                client.request("agent.kill", {"target": "steady"}, timeout=1.0)
        finally:
            os.kill(host_pid, signal.SIGCONT)
        assert caught.value.code == "control_endpoint_timeout"
        assert "will not take effect later" in (caught.value.hint or "")
        # The host, awake, reads the kill it was sent and answers it on the same connection.
        connection = client.raw_socket()
        connection.settimeout(30)
        with connection.makefile("rb") as late:
            late_answer = json.loads(late.readline())
    assert late_answer["ok"] is False and late_answer["error"]["code"] == "control_endpoint_timeout"
    assert "not started" in late_answer["error"]["message"]
    record = show("steady")
    assert record["status"] != "off" and record["pid"] == agent_pid
    assert psutil.Process(agent_pid).is_running()
    log = run_wardian("host", "logs").stdout
    assert "refused agent.kill" in log and "after its deadline" in log


@pytest.mark.parametrize(
    "command", [("agent", "kill", "steady"), ("agent", "wait", "steady", "--until", "off", "--timeout", "1")]
)
def test_a_command_waits_for_a_stopped_host_only_as_long_as_it_is_told(
    steady, stopped_host: int, run_wardian, command: tuple[str, ...]
) -> None:
    # Lifecycle commands allow 60 s by default; WARDIAN_CONTROL_TIMEOUT overrides that (the
    # run's own 30 s limit fails the test if it does not).
    refused = run_wardian(*command, env={"WARDIAN_CONTROL_TIMEOUT": "1"}, timeout=30)
    error = refused.error()
    assert (refused.returncode, error["code"]) == (7, "control_endpoint_timeout")
    waited = error["details"]["timeout_seconds"]
    assert waited == (1.0 if command[1] == "kill" else 2.0)  # a wait's own 1 s, then the host's 1 s
