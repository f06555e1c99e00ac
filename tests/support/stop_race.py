"""Spawns racing `wardian host stop` (issue 46): one round in a fresh home, and what outlived it.

Used by tests/e2e/test_stop_race.py (a few rounds) and benchmarks/stop_race.py (20 and the figure).
"""

import contextlib
import json
import os
import selectors
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
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
    not_off: dict[str, str]  # agents state.db does not call `off`, with their status and why
    answers: Counter[str] = field(default_factory=Counter)  # each spawn's: spawned, or its error code
    stop_exit: int = 0
    new_host: bool = False  # a spawn that came after the stop had ended started a host of its own


def _spawn_args(name: str, workspace: Path, launched: Path | None) -> list[str]:
    """`launched`: a FIFO the agent writes a line to once it runs (after its traps are set)."""
    identity = ["--class", "Coder", "--name", name, "--workspace", str(workspace)]
    command = STUBBORN if launched is None else STUBBORN.replace("; while", f"; echo up > {launched}; while", 1)
    return [WARDIAN, "agent", "spawn", "--provider", "generic", *identity, "--", "bash", "-c", command]


def _not_off(wardian_home: Path) -> dict[str, str]:
    """Each agent state.db does not call `off`: its status, with the rule and exit code that made it."""
    conn = sqlite3.connect(wardian_home / "state.db")
    try:
        rows = conn.execute("SELECT name, status, status_evidence FROM agents WHERE status != 'off'").fetchall()
    finally:
        conn.close()
    return {name: _with_cause(status, evidence) for name, status, evidence in rows}


def _with_cause(status: str, evidence: str | None) -> str:
    cause = json.loads(evidence or "{}")
    return f"{status} ({cause.get('rule')}, exit code {cause.get('exit_code')})" if cause else status


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


@contextlib.contextmanager
def launch_lines(launched: Path) -> Iterator[Callable[[], None]]:
    """Read the FIFO every agent writes its line to as it runs; yields the wait for the first line.

    The FIFO stays open for reading until the round is over, not only until the first line: an
    agent that opened it to write while the round waited, and wrote once the round had closed
    it, died of SIGPIPE (its trap ignores only HUP and TERM) and state.db rightly called it
    `error` (CI, round 1: `{'a3': 'error'}`). Every line fits in the pipe's buffer, unread."""
    reader = os.open(launched, os.O_RDONLY | os.O_NONBLOCK)  # open at once, read when a writer comes

    def first_agent_launched() -> None:
        with selectors.DefaultSelector() as waiting:
            waiting.register(reader, selectors.EVENT_READ)
            assert waiting.select(timeout=60), "no spawn's agent was launched within 60 s"

    try:
        yield first_agent_launched
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
        env = clean_environment(dict(os.environ), home, wardian_home)
        with contextlib.ExitStack() as held:
            held.callback(reap_home, wardian_home)  # last: after the FIFO's reader is closed
            first_agent_launched = None
            if launched is not None:
                os.mkfifo(launched)
                first_agent_launched = held.enter_context(launch_lines(launched))
            subprocess.run([WARDIAN, "host", "start"], env=env, capture_output=True, check=True, timeout=120)
            arguments = [_spawn_args(f"a{index}", workspace, launched) for index in range(spawns)]
            started = [subprocess.Popen(argv, env=env, text=True, stdout=-1, stderr=-1) for argv in arguments]
            if first_agent_launched is not None:
                first_agent_launched()
            time.sleep(delay)  # the race itself: the stop comes while the spawns are under way
            stopped = subprocess.run([WARDIAN, "host", "stop"], env=env, capture_output=True, timeout=120)
            answers = Counter(_answer(spawn) for spawn in started)
            left = [_described(pid) for pid in living_with("WARDIAN_HOME", str(wardian_home))]
            outcome = RoundOutcome(left, _not_off(wardian_home), answers, stopped.returncode)
            outcome.new_host = running_host_pid(wardian_home) is not None
            return outcome
