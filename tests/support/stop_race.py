"""Spawns racing `wardian host stop` (issue 46): one round in a fresh home, and what outlived it.

Used by tests/e2e/test_stop_race.py (a few rounds) and benchmarks/stop_race.py (20 and the figure).
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from living_processes import living_with

from wardian_host.daemon.host_lock import running_host_pid
from wardian_host.testing.hermetic import clean_environment
from wardian_host.testing.reaping import reap_home

WARDIAN = str(Path(sys.executable).parent / "wardian")
# Only SIGKILL ends it: the hang-up and SIGTERM a stop starts with are ignored.
STUBBORN = 'trap "" HUP TERM; while :; do sleep 1; done'


@dataclass
class RoundOutcome:
    left: list[str]  # processes of the home alive once `host stop` and every spawn returned
    not_off: dict[str, str]  # agents state.db does not call `off`, with their status
    answers: Counter[str] = field(default_factory=Counter)  # each spawn's: spawned, or its error code
    stop_exit: int = 0
    new_host: bool = False  # a spawn that came after the stop had ended started a host of its own


def _spawn_args(name: str, workspace: Path) -> list[str]:
    identity = ["--class", "Coder", "--name", name, "--workspace", str(workspace)]
    return [WARDIAN, "agent", "spawn", "--provider", "generic", *identity, "--", "bash", "-c", STUBBORN]


def _not_off(wardian_home: Path) -> dict[str, str]:
    conn = sqlite3.connect(wardian_home / "state.db")
    try:
        return dict(conn.execute("SELECT name, status FROM agents WHERE status != 'off'"))
    finally:
        conn.close()


def _answer(spawn: "subprocess.Popen[str]") -> str:
    _, err = spawn.communicate(timeout=120)
    if spawn.returncode == 0:
        return "spawned"
    try:
        return str(json.loads(err)["error"]["code"])
    except (ValueError, KeyError):
        return f"exit {spawn.returncode}"


def _described(pid: int) -> str:
    """`pid` with its command line and the agent it carries, if any: what a failure names."""
    try:
        process = psutil.Process(pid)
        agent = process.environ().get("WARDIAN_SESSION_ID", "no agent")
        return f"{pid} {' '.join(process.cmdline())[:80]} ({agent})"
    except psutil.Error:
        return f"{pid} (gone)"


def _first_spawn_arrived(wardian_home: Path) -> None:
    """Return once the host has taken a spawn (its row is in state.db)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        conn = sqlite3.connect(wardian_home / "state.db")
        try:
            if conn.execute("SELECT count(*) FROM agents").fetchone()[0]:
                return
        finally:
            conn.close()
        time.sleep(0.005)
    raise AssertionError("no spawn reached the host within 60 s")


def race_round(spawns: int = 7, delay: float = 0.15, after_first: bool = False) -> RoundOutcome:
    """Start a host, `spawns` spawns at once, and `host stop` `delay` seconds later (`after_first`:
    `delay` seconds after the host took the first spawn, however slow the CLIs are to start)."""
    with tempfile.TemporaryDirectory(prefix="stop-race-") as scratch:
        root = Path(scratch)
        home, wardian_home, workspace = root / "home", root / "wardian-home", root / "workspace"
        for directory in (home, wardian_home, workspace):
            directory.mkdir()
        env = clean_environment(dict(os.environ), home, wardian_home)
        try:
            subprocess.run([WARDIAN, "host", "start"], env=env, capture_output=True, check=True, timeout=120)
            started = [
                subprocess.Popen(_spawn_args(f"a{index}", workspace), env=env, text=True, stdout=-1, stderr=-1)
                for index in range(spawns)
            ]
            if after_first:
                _first_spawn_arrived(wardian_home)
            time.sleep(delay)  # the race itself: the stop comes while the spawns are under way
            stopped = subprocess.run([WARDIAN, "host", "stop"], env=env, capture_output=True, timeout=120)
            answers = Counter(_answer(spawn) for spawn in started)
            left = [_described(pid) for pid in living_with("WARDIAN_HOME", str(wardian_home))]
            outcome = RoundOutcome(left, _not_off(wardian_home), answers, stopped.returncode)
            outcome.new_host = running_host_pid(wardian_home) is not None
            return outcome
        finally:
            reap_home(wardian_home)
