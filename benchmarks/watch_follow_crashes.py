"""`agent watch --follow` across kill -9 of the host, at the full count of issue 46 item 4.

    .venv/bin/python benchmarks/watch_follow_crashes.py [--agents 20] [--kills 10] [--interval 0.01]

N agents print numbered lines, one every `--interval` seconds; each has a `wardian agent watch
--follow --since 0` of its own. The host is killed (`kill -9`) `--kills` times, each time
`wardian host start` brings the next one, and the followers must stream on by themselves.
Printed: lines streamed, lines streamed twice, the most copies of one line, lines missing
between the first and the last streamed, lines out of order and `lagged` items (each target 0),
per kill the time from `host start` returning to every follower streaming past where it was.
"""

import argparse
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO

from wardian_host.daemon.host_lock import running_host_pid, wait_until_gone
from wardian_host.testing.reaping import reap_home

WARDIAN = str(Path(sys.executable).parent / "wardian")
NUMBERED = re.compile(r"^line-(\d+)\r?$", re.MULTILINE)


def printer(interval: float) -> list[str]:
    script = f'printf "> "; read x; n=0; while :; do n=$((n+1)); echo "line-$n"; sleep {interval}; done'
    return ["--provider-setting", "prompt_pattern=^> $", "--", "bash", "--norc", "--noprofile", "-c", script]


class Follower:
    def __init__(self, name: str, env: dict[str, str]) -> None:
        command = [WARDIAN, "agent", "watch", name, "--follow", "--since", "0"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        self.output: list[str] = []
        self.lagged = 0
        self.lock = threading.Lock()
        assert self.process.stdout is not None
        self.thread = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self.thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            item = json.loads(line)
            with self.lock:
                self.output.append(item.get("output", ""))
                self.lagged += "lagged" in item

    def last(self) -> int:
        with self.lock:
            found = NUMBERED.findall("".join(self.output[-50:]))
        return int(found[-1]) if found else 0

    def numbers(self) -> list[int]:
        with self.lock:
            return [int(number) for number in NUMBERED.findall("".join(self.output))]


def run(home: Path, workspace: Path, agents: int, kills: int, interval: float) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDIAN_")} | {"WARDIAN_HOME": str(home)}

    def wardian(*args: str) -> None:
        subprocess.run([WARDIAN, *args], env=env, check=True, capture_output=True, timeout=120)

    names = [f"printer-{index}" for index in range(agents)]
    for name in names:
        wardian("agent", "spawn", "--provider", "generic", "--class", "Coder", "--name", name,
                "--workspace", str(workspace), *printer(interval))  # fmt: skip
    for name in names:
        wardian("agent", "wait", name, "--until", "idle", "--timeout", "60s")
    followers = [Follower(name, env) for name in names]
    for name in names:
        wardian("send", "go", "--to", name)
    time.sleep(2)
    resumed: list[float] = []
    for _ in range(kills):
        host = running_host_pid(home)
        assert host is not None
        os.kill(host, signal.SIGKILL)
        assert wait_until_gone(host, 30)
        marks = [follower.last() for follower in followers]
        wardian("host", "start")
        started = time.monotonic()
        while any(follower.last() <= mark for follower, mark in zip(followers, marks, strict=True)):
            time.sleep(0.01)
        resumed.append(time.monotonic() - started)
        time.sleep(1)
    for follower in followers:
        follower.process.terminate()
        follower.process.wait(30)
        follower.thread.join(30)
    wardian("host", "stop")
    report(followers, resumed)


def report(followers: list[Follower], resumed: list[float]) -> None:
    streamed, doubled, most, missing, disorder = 0, 0, 0, 0, 0
    for follower in followers:  # each agent numbers its own lines
        numbers = follower.numbers()
        copies = Counter(numbers)
        streamed += len(numbers)
        doubled += len(numbers) - len(copies)
        most = max(most, *copies.values()) if copies else most
        missing += len(set(range(numbers[0], numbers[-1] + 1)) - set(numbers)) if numbers else 0
        disorder += sum(1 for before, after in itertools.pairwise(numbers) if after != before + 1)
    print(f"lines streamed: {streamed}")
    print(f"lines streamed twice: {doubled} (target 0); most copies of one line: {most}")
    print(f"lines missing: {missing} (target 0); breaks in order: {disorder} (target 0)")
    print(f"lagged items: {sum(follower.lagged for follower in followers)} (target 0)")
    print("every follower streaming again after host start, per kill: " + ", ".join(f"{s:.2f} s" for s in resumed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--interval", type=float, default=0.01)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home, workspace = Path(scratch) / "home", Path(scratch) / "workspace"
        workspace.mkdir()
        try:
            run(home, workspace, args.agents, args.kills, args.interval)
        finally:
            reap_home(home)


if __name__ == "__main__":
    main()
