"""Spawns racing `wardian host stop` (issue 46): one round in a fresh home, and what outlived it.

Used by tests/e2e/test_stop_race.py (a few rounds) and benchmarks/stop_race.py (20 and the figure).
"""

import json
import os
import selectors
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


def _spawn_args(name: str, workspace: Path, launched: Path | None) -> list[str]:
    """`launched`: a FIFO the agent writes a line to once it runs (after its traps are set)."""
    identity = ["--class", "Coder", "--name", name, "--workspace", str(workspace)]
    command = STUBBORN if launched is None else STUBBORN.replace("; while", f"; echo up > {launched}; while", 1)
    return [WARDIAN, "agent", "spawn", "--provider", "generic", *identity, "--", "bash", "-c", command]


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


def _first_agent_launched(launched: Path) -> None:
    """Return once the host has launched a spawn's agent: its line arrives on the FIFO."""
    reader = os.open(launched, os.O_RDONLY | os.O_NONBLOCK)  # open at once, read when a writer comes
    try:
        with selectors.DefaultSelector() as waiting:
            waiting.register(reader, selectors.EVENT_READ)
            assert waiting.select(timeout=60), "no spawn's agent was launched within 60 s"
    finally:
        os.close(reader)


def race_round(spawns: int = 7, delay: float = 0.15, after_first: bool = False) -> RoundOutcome:
    """Start a host, `spawns` spawns at once, and `host stop` `delay` seconds later (`after_first`:
    `delay` seconds after the host launched the first spawn's agent, however slow the CLIs are to
    start, while the others are under way)."""
    with tempfile.TemporaryDirectory(prefix="stop-race-") as scratch:
        root = Path(scratch)
        home, wardian_home, workspace = root / "home", root / "wardian-home", root / "workspace"
        for directory in (home, wardian_home, workspace):
            directory.mkdir()
        launched = root / "launched" if after_first else None
        if launched is not None:
            os.mkfifo(launched)
        env = clean_environment(dict(os.environ), home, wardian_home)
        try:
            subprocess.run([WARDIAN, "host", "start"], env=env, capture_output=True, check=True, timeout=120)
            arguments = [_spawn_args(f"a{index}", workspace, launched) for index in range(spawns)]
            started = [subprocess.Popen(argv, env=env, text=True, stdout=-1, stderr=-1) for argv in arguments]
            if launched is not None:
                _first_agent_launched(launched)
            time.sleep(delay)  # the race itself: the stop comes while the spawns are under way
            stopped = subprocess.run([WARDIAN, "host", "stop"], env=env, capture_output=True, timeout=120)
            answers = Counter(_answer(spawn) for spawn in started)
            left = [_described(pid) for pid in living_with("WARDIAN_HOME", str(wardian_home))]
            outcome = RoundOutcome(left, _not_off(wardian_home), answers, stopped.returncode)
            outcome.new_host = running_host_pid(wardian_home) is not None
            return outcome
        finally:
            reap_home(wardian_home)
