"""kill -9 of the host, round after round, while 20 agents print numbered lines: each time the
next host adopts every agent from the terminal server, live and interactive, no line lost or
doubled in `agent watch`, state.db intact — through the real `wardian` command.

Every commit runs two rounds: the second host adopts what the first adopter held, so two prove
the adoption repeats (each round is the same kill at a new point of the bursts; a third cost
13 s of CPU and proved nothing the second did not); `benchmarks/soaks.py` runs issue 32's full
ten (WARDIAN_CRASH_ROUNDS=10)."""

import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prompted_shell import prompted_bash

from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone

WARDIAN = str(Path(sys.executable).parent / "wardian")
AGENTS = 20
ROUNDS = int(os.environ.get("WARDIAN_CRASH_ROUNDS", "2"))
BURST = 50  # lines each input prints, slowly enough that the host dies in the middle of them

# A prompt, then for each line typed a burst of numbered lines (numbered across bursts) and the prompt.
BURSTER = prompted_bash(
    f'n=0; printf "> "; while read x; do for i in $(seq {BURST}); do n=$((n+1)); echo "line-$n"; '
    'sleep 0.01; done; printf "> "; done'
)


def _all_at_once(commands: list[list[str]]) -> None:
    """Run `wardian` commands side by side; each must succeed."""
    running = [
        subprocess.Popen([WARDIAN, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE) for command in commands
    ]
    for command, process in zip(commands, running, strict=True):
        _, error = process.communicate(timeout=60)
        # The whole envelope in the message: pytest cuts a long tuple's repr, and its code and
        # message are what a failure needs.
        assert process.returncode == 0, f"{shlex.join(command)}\n{error.decode()}"


def _numbers(output: str) -> list[int]:
    return [int(number) for number in re.findall(r"^line-(\d+)\r?$", output, re.MULTILINE)]


def test_host_kills_round_after_round_leave_twenty_agents_live_with_every_line_once(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], wardian_home: Path
) -> None:
    names = [f"burst-{index}" for index in range(AGENTS)]
    _all_at_once([generic_spawn_args(name, *BURSTER) for name in names])
    _all_at_once([["agent", "wait", name, "--until", "idle", "--timeout", "30s"] for name in names])
    pids = {
        agent["name"]: agent["pid"] for agent in run_wardian("agent", "list", "--fields", "name,pid").json()["agents"]
    }
    for round_number in range(ROUNDS):
        _all_at_once([["send", f"round {round_number}", "--to", name] for name in names])  # each burst begins
        host = running_host_pid(wardian_home)
        assert host is not None and host > 0
        os.kill(host, signal.SIGKILL)  # in the middle of every burst
        assert wait_until_gone(host, 10)
        assert run_wardian("host", "start").returncode == 0
        _all_at_once([["agent", "wait", name, "--until", "idle", "--timeout", "30s"] for name in names])
        listed = run_wardian("agent", "list", "--fields", "name,pid,status").json()["agents"]
        assert {agent["name"]: agent["pid"] for agent in listed} == pids  # the same processes, none relaunched
        assert {agent["status"] for agent in listed} == {"idle"}  # live: no agent is headless
        check = sqlite3.connect(wardian_home / "state.db")
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        check.close()
    for name in names:
        watched = run_wardian("agent", "watch", name, "--since", "0").json()["watch"]
        assert _numbers(watched["output"]) == list(range(1, ROUNDS * BURST + 1)), name
