"""`agent watch --follow` across `kill -9` of the host while the agent prints fast: the follower
goes on from the last byte it printed, so every numbered line reaches it exactly once, in order
(issue 46 item 4: its cursor went back after 9 of 10 restarts). benchmarks/watch_follow_crashes.py
runs the full count: 20 agents, 10 kills."""

import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from host_restarts import crash_host
from prompted_shell import prompted_bash

WARDIAN = str(Path(sys.executable).parent / "wardian")
KILLS = 3
# From the first input on, a numbered line every 2 ms: the host dies in the middle of them.
PRINTER = prompted_bash('printf "> "; read x; n=0; while :; do n=$((n+1)); echo "line-$n"; sleep 0.002; done')
# Agents that printed 8 MB each, spawned before the printer: a new host refills their buffers
# from the terminal server's rings, then the printer's, while it already serves, so the follower
# comes back before the printer's buffer reached its cursor (what 20 busy agents did in the issue).
BALLAST = prompted_bash("head -c 8000000 /dev/zero | tr '\\0' x | fold -w 99; echo; printf '> '; read x")
NUMBERED = re.compile(r"^line-(\d+)\r?$", re.MULTILINE)


class Follower:
    """`wardian agent watch NAME --follow` in its own process, its output gathered as it streams."""

    def __init__(self, name: str) -> None:
        self.process = subprocess.Popen(
            [WARDIAN, "agent", "watch", name, "--follow", "--since", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.output: list[str] = []
        self._grew = threading.Condition()
        assert self.process.stdout is not None
        self._reading = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self._reading.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._grew:
                self.output.append(json.loads(line).get("output", ""))
                self._grew.notify_all()

    def numbers(self) -> list[int]:
        with self._grew:
            return [int(number) for number in NUMBERED.findall("".join(self.output))]

    def await_line(self, number: int, timeout: float = 60) -> None:
        """Until line `number` (or a later one) was streamed."""
        with self._grew:
            reached = self._grew.wait_for(lambda: max(self._numbers_held(), default=0) >= number, timeout)
        if not reached and self.process.poll() is not None:
            assert self.process.stderr is not None
            raise AssertionError(f"the follower ended: {self.process.stderr.read()}")
        assert reached, f"line-{number} never streamed; the follower's last: {self.numbers()[-3:]}"

    def _numbers_held(self) -> list[int]:
        return [int(number) for number in NUMBERED.findall("".join(self.output[-50:]))]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self._reading.join(30)


def test_a_follower_gets_every_line_once_across_host_kills(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], wardian_home: Path
) -> None:
    for name, command in [("ballast-1", BALLAST), ("ballast-2", BALLAST), ("printer", PRINTER)]:
        assert run_wardian(*generic_spawn_args(name, *command)).returncode == 0
        assert run_wardian("agent", "wait", name, "--until", "idle", "--timeout", "60s").returncode == 0
    follower = Follower("printer")
    try:
        assert run_wardian("send", "go", "--to", "printer").returncode == 0
        follower.await_line(50)
        for _ in range(KILLS):
            crash_host(wardian_home)
            assert run_wardian("host", "start").returncode == 0
            # Lines printed after the new host took the agent on reach the follower too.
            follower.await_line(max(follower.numbers()) + 100)
    finally:
        follower.stop()
    numbers = follower.numbers()
    assert numbers == list(range(1, len(numbers) + 1)), _first_break(numbers)


def _first_break(numbers: list[int]) -> str:
    """Where the streamed lines stop counting up by one: what a failure says."""
    for index in range(1, len(numbers)):
        if numbers[index] != numbers[index - 1] + 1:
            doubled = len(numbers) - len(set(numbers))
            return f"after line-{numbers[index - 1]} came line-{numbers[index]}; {doubled} lines streamed twice"
    return "every line once, in order"
