"""Parallel commands on a home with no host: one host wins the start, and every command uses it."""

import json
import subprocess
import sys
from pathlib import Path

import psutil

from wardian_host.daemon.host_lock import running_host_pid

WARDIAN = str(Path(sys.executable).parent / "wardian")
PARALLEL_SPAWNS = 10


def test_parallel_spawns_on_a_home_without_a_host_all_use_the_host_that_won(
    generic_spawn_args, wardian_home: Path, run_wardian
) -> None:
    commands = [
        subprocess.Popen(
            [WARDIAN, *generic_spawn_args(f"racer-{index}", "--", "sleep", "600")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for index in range(PARALLEL_SPAWNS)
    ]
    outcomes = [(command.wait(timeout=120), *command.communicate()) for command in commands]
    failures = [(code, err) for code, _, err in outcomes if code != 0]
    assert failures == []
    spawned = {json.loads(out)["agent"]["name"] for _, out, _ in outcomes}
    assert spawned == {f"racer-{index}" for index in range(PARALLEL_SPAWNS)}
    host_pid = running_host_pid(wardian_home)
    assert host_pid and run_wardian("host", "status").json()["host"]["pid"] == host_pid
    # The hosts that lost the start report it and exit; wait for that, then only the winner is left.
    losers = [process for process in _hosts_of(wardian_home) if process.pid != host_pid]
    _, alive = psutil.wait_procs(losers, timeout=30)
    assert alive == []
    assert [process.pid for process in _hosts_of(wardian_home)] == [host_pid]
    listed = run_wardian("agent", "list", "--fields", "name,status_source").json()["agents"]
    assert sorted(agent["name"] for agent in listed) == sorted(spawned)
    assert {agent["status_source"] for agent in listed} == {"live"}


def _hosts_of(home: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if "wardian_host.daemon" in cmdline and str(home) in cmdline:
            found.append(process)
    return found
