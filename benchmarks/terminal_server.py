"""Terminal server figures (issue 32), each printed beside its floor measured in the same run,
each run --rounds times (3) with the load average at its end: the machine is shared.

    .venv/bin/python benchmarks/terminal_server.py [--flood-mb 200] [--agents 50] [--only X]
    WARDIAN_PTY_BACKEND=ptyprocess .venv/bin/python benchmarks/terminal_server.py

(a) one agent writing M MB: the rate its output reaches the host's side (a `ServerPtys`
    client, as the host holds it) through the terminal server (its own process, as the
    host starts it), vs a bare os.read loop on a PTY running the same command (target >= 0.5x);
(d) during a flood of M MB through a real host, another agent's status latency: from its
    prompt (which carries the time it was printed) to the host's recorded change to idle
    (target p99 < 50 ms);
(e) keystroke -> echo through `wardian agent attach` (target p99 <= 10 ms), beside its floor,
    a bare PTY's round trip;
(f) status change -> a waiting `agent wait --next` exits: one wait started before a
    `host restart` and answered after it, then waits on the new host (target p99 <= 20 ms);
(c) N idle agents (`cat`): RSS of host + terminal server (target <= 80 MB) and their CPU over
    10 idle seconds (target <= 1 % of a core);
(b) `wardian host restart` with N agents: the time from the new host answering until every
    agent has read a line typed to it (target p99 <= 1 s), typed to all by one `wardian send
    --to class:` started as the new host answers, each agent stamping when it read the line;
    and the lines lost or doubled across the restart, read back with `wardian agent watch`
    (target 0). Then a line typed to each by a `wardian send` of its own, all started at once,
    beside its floor, the same N sends answered at once by a stand-in host (what N CLI
    start-ups cost on this machine; no target).
"""

import argparse
import asyncio
import contextlib
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from process_exit import exited_at
from ptyprocess import PtyProcess

from wardian_core import paths
from wardian_host.terminal.server import process as server_process
from wardian_host.terminal.server_client import ServerPtys

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from answering_host import answering_host

WARDIAN = str(Path(sys.executable).parent / "wardian")
# A generic agent whose prompt carries the time it was printed: its status evidence says when.
STAMPED_PROMPT = r"prompt_pattern=^t=\S+ > $"
PROMPT_LINE = 'printf "t=%s > " "$EPOCHREALTIME"'


@contextlib.contextmanager
def _bench_home() -> Iterator[Path]:
    """A fresh home whose host (and agents, and server) is stopped however the figure ends."""
    with tempfile.TemporaryDirectory() as directory:
        try:
            yield Path(directory)
        finally:
            env = os.environ | {
                "WARDIAN_HOME": directory,
                "WARDIAN_CONTROL_TIMEOUT": "600",
            }  # 100 agents, a busy machine
            subprocess.run([WARDIAN, "host", "stop"], capture_output=True, env=env)


def _load() -> str:
    return "load " + " ".join(f"{figure:.1f}" for figure in os.getloadavg())


def _p99(values: list[float]) -> float:
    # inclusive: a p99 of 20 samples lies within them, not extrapolated beyond the slowest
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]


def _verdict(met: bool) -> str:
    return "" if met else "  OVER TARGET"


def _flood_command(megabytes: int) -> list[str]:
    return ["head", "-c", str(megabytes * 1024 * 1024), "/dev/zero"]


def bare_read_rate(megabytes: int) -> float:
    """MB/s of a plain os.read loop on a PTY (the floor)."""
    process = PtyProcess.spawn(_flood_command(megabytes))
    started, total = time.perf_counter(), 0
    while True:
        try:
            chunk = os.read(process.fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        total += len(chunk)
    elapsed = time.perf_counter() - started
    process.close(force=True)
    return total / 1024 / 1024 / elapsed


async def _through_server(home: Path, megabytes: int) -> float:
    paths.ensure_home(home)
    client = await ServerPtys.connect(home)  # starts the server process, as a host does
    received = 0
    done = asyncio.Event()

    def on_output(data: bytes) -> None:
        nonlocal received
        received += len(data)

    started = time.perf_counter()
    await client.open(
        "flood", _flood_command(megabytes), dict(os.environ), Path.cwd(), (24, 80), on_output, lambda _: done.set()
    )
    await done.wait()
    elapsed = time.perf_counter() - started
    client.shutdown()
    await client.close()
    return received / 1024 / 1024 / elapsed


def flood(megabytes: int) -> None:
    floor = bare_read_rate(megabytes)
    with tempfile.TemporaryDirectory() as home:
        rate = asyncio.run(_through_server(Path(home), megabytes))
    print(
        f"(a) {megabytes} MB flood: {rate:.0f} MB/s through the server, bare os.read {floor:.0f} MB/s, "
        f"ratio {rate / floor:.2f} (target >= 0.5){_verdict(rate >= 0.5 * floor)}; {_load()}"
    )


def _wardian(home: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [WARDIAN, *args], capture_output=True, text=True, env=os.environ | {"WARDIAN_HOME": str(home)}
    )
    if done.returncode != 0:
        raise SystemExit(f"wardian {' '.join(args)}: {done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else {}


def _exit_times(processes: list[subprocess.Popen[bytes]], started: float) -> list[float]:
    """Each process's time from `started` to its exit (waited for in turn: a late one counts late)."""
    times = []
    for process in processes:
        process.wait()
        times.append(time.perf_counter() - started)
    return times


def sends_at_once(agents: int) -> float:
    """(b)'s floor: p99 of `agents` `wardian send`s started at once against a stand-in host that
    answers each at once, the time from their start to each exit: no host work in it."""
    with tempfile.TemporaryDirectory() as directory:
        paths.ensure_home(Path(directory))
        env = os.environ | {"WARDIAN_HOME": directory}
        with answering_host(Path(directory), {"results": []}):
            started = time.perf_counter()
            sends = [
                subprocess.Popen(
                    [WARDIAN, "send", "after", "--to", f"echo-{index}"], stdout=subprocess.DEVNULL, env=env
                )
                for index in range(agents)
            ]
            return _p99(_exit_times(sends, started))


def _took_times(stamps: Path, names: list[str], count: int, since: float) -> list[float]:
    """Each agent's time from `since` to reading its `count`-th typed line, as it stamped it."""
    deadline = time.time() + 30
    while True:
        taken = [_stamp_lines(stamps / name) for name in names]
        if all(len(lines) >= count for lines in taken):
            return [lines[count - 1] - since for lines in taken]
        if time.time() > deadline:
            missing = [name for name, lines in zip(names, taken, strict=True) if len(lines) < count]
            raise SystemExit(f"(b): {len(missing)} agents never read line {count}: {missing[:5]}")
        time.sleep(0.01)


def _stamp_lines(path: Path) -> list[float]:
    with contextlib.suppress(FileNotFoundError):
        return [float(line) for line in path.read_text().split()]
    return []


def _lines_lost_or_doubled(home: Path, names: list[str], lines: int) -> int:
    """Every echoed line read back with `agent watch` from the first byte: each must be there once."""
    bad = 0
    for name in names:
        deadline = time.time() + 10
        while True:  # an echo precedes its stamp, but the host may read it a moment later
            output = _wardian(home, "agent", "watch", name, "--since", "0")["watch"]["output"]
            if f"line-{lines}\n" in output or time.time() > deadline:
                break
            time.sleep(0.05)
        bad += sum(abs(output.count(f"line-{n}\n") - 1) for n in range(1, lines + 1))
    return bad


def restart(agents: int) -> None:
    """Each agent stamps the moment it reads a typed line (bash's $EPOCHREALTIME, no process), so
    "takes input" is measured at the agent, and no watch process has to be started in time."""
    with _bench_home() as home:
        directory = str(home)
        stamps = home / "took"
        stamps.mkdir()
        names = [f"echo-{index}" for index in range(agents)]
        for name in names:
            script = f'n=0; while read x; do n=$((n+1)); echo "line-$n"; echo "$EPOCHREALTIME" >> {stamps / name}; done'
            _wardian(
                home,
                "agent",
                "spawn",
                "--provider",
                "generic",
                "--class",
                "Bench",
                "--name",
                name,
                "--workspace",
                directory,
                "--",
                "bash",
                "--norc",
                "--noprofile",
                "-c",
                script,
            )
        for name in names:
            _wardian(home, "send", "before", "--to", name)
        _took_times(stamps, names, 1, 0.0)
        _wardian(home, "host", "restart")
        answered = time.time()
        _wardian(home, "send", "after", "--to", "class:Bench")  # one CLI types to all: the host's work
        after_answer = _took_times(stamps, names, 2, answered)
        typed = time.time()
        sends = [  # then one `wardian send` per agent, all at once: mostly 50 CLI start-ups
            subprocess.Popen(
                [WARDIAN, "send", "again", "--to", name],
                stdout=subprocess.DEVNULL,
                env=os.environ | {"WARDIAN_HOME": directory},
            )
            for name in names
        ]
        at_once = _took_times(stamps, names, 3, typed)
        for send in sends:
            send.wait()
        bad = _lines_lost_or_doubled(home, names, 3)
    p99, each, floor = _p99(after_answer), _p99(at_once), sends_at_once(agents)
    print(
        f"(b) host restart, {agents} agents: every agent took a line typed to all by one `send --to class:`, "
        f"p99 {p99 * 1000:.0f} ms after the new host answered (target p99 <= 1 s){_verdict(p99 <= 1.0)}; "
        f"typed by {agents} sends at once, p99 {each * 1000:.0f} ms beside its floor, {agents} sends at once "
        f"answered at once by a stand-in host, p99 {floor * 1000:.0f} ms; "
        f"lines lost or doubled: {bad} (target 0){_verdict(bad == 0)}; {_load()}"
    )


def idle(agents: int, seconds: float = 10.0) -> None:
    import psutil

    from wardian_host.daemon.host_lock import running_host_pid

    with _bench_home() as home:
        directory = str(home)
        for index in range(agents):
            _wardian(
                home,
                "agent",
                "spawn",
                "--provider",
                "generic",
                "--class",
                "Bench",
                "--name",
                f"idle-{index}",
                "--workspace",
                directory,
                "--",
                "cat",
            )
        processes = [
            psutil.Process(pid) for pid in (running_host_pid(home), server_process.running_server_pid(home)) if pid
        ]
        time.sleep(3.0)  # the agents' start-up settles (a benchmark, not a test)
        before = [process.cpu_times() for process in processes]
        time.sleep(seconds)
        used = sum(
            (after.user + after.system) - (start.user + start.system)
            for start, after in zip(before, (process.cpu_times() for process in processes), strict=True)
        )
        each = [process.memory_info().rss / 1024 / 1024 for process in processes]
    rss, parts = sum(each), " + ".join(f"{part:.0f}" for part in each)
    cpu = used / seconds * 100
    print(
        f"(c) {agents} idle agents: host + terminal server RSS {rss:.0f} MB ({parts}; target <= 80), "
        f"CPU {cpu:.2f} % over {seconds:.0f} s (target <= 1 %){_verdict(rss <= 80 and cpu <= 1)}; {_load()}"
    )


def _spawn(home: Path, name: str, script: str, *settings: str) -> None:
    argv = ["bash", "--norc", "--noprofile", "-c", script]
    spawn = ["agent", "spawn", "--provider", "generic", "--class", "Bench", "--name", name, "--workspace", str(home)]
    _wardian(home, *spawn, *settings, "--", *argv)


def _stamped_changes(home: Path, name: str) -> list[tuple[float, float]]:
    """(printed, recorded) wall times of each change to idle its stamped prompt caused."""
    events = _wardian(home, "agent", "watch", name, "--since", "0")["watch"]["events"]
    changes = []
    for event in events:
        line = event.get("evidence", {}).get("line", "")
        if event["kind"] == "status" and event["to"] == "idle" and line.startswith("t="):
            recorded = datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()
            changes.append((float(line[2:].split()[0]), recorded))
    return changes


def status_during_flood(megabytes: int) -> None:
    toggling = f"while :; do sleep 0.2; echo working; sleep 0.05; {PROMPT_LINE}; done"
    with _bench_home() as home:
        _spawn(home, "pinger", toggling, "--provider-setting", STAMPED_PROMPT)
        _wardian(home, "agent", "wait", "pinger", "--until", "idle", "--timeout", "60s")
        started = time.time()
        lines = f"yes 'flood line of some sixty characters, as a build log prints' | head -c {megabytes << 20}"
        _spawn(home, "flood", lines)
        _wardian(home, "agent", "wait", "flood", "--until", "off", "--timeout", "20m")
        ended = time.time()
        during = [
            recorded - printed for printed, recorded in _stamped_changes(home, "pinger") if started <= printed <= ended
        ]
    p99 = _p99(during)
    print(
        f"(d) another agent's status during a {megabytes} MB flood through the host ({ended - started:.0f} s): "
        f"{len(during)} changes, median {statistics.median(during) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms "
        f"(target p99 < 50 ms){_verdict(p99 < 0.05)}; {_load()}"
    )


def _round_trips(fd: int, write: Callable[[bytes], object], samples: int) -> list[float]:
    """Each key's time from being typed to its echo read back on `fd`."""
    times = []
    for index in range(samples):
        key = bytes([ord("a") + index % 26])
        started = time.perf_counter()
        write(key)
        seen = b""
        while key not in seen:
            if not select.select([fd], [], [], 10)[0]:
                raise SystemExit(f"no echo of {key!r} within 10 s")
            seen += os.read(fd, 4096)
        times.append(time.perf_counter() - started)
    return times


def keystroke_echo(samples: int = 200) -> None:
    bare = PtyProcess.spawn(["cat"])
    floor = _round_trips(bare.fd, bare.write, samples)
    bare.close(force=True)
    with _bench_home() as home:
        directory = str(home)
        _spawn(home, "echoer", "exec cat")
        client = PtyProcess.spawn([WARDIAN, "agent", "attach", "echoer"], env=os.environ | {"WARDIAN_HOME": directory})
        while termios.tcgetattr(client.fd)[3] & termios.ECHO:  # until attach has its terminal raw
            time.sleep(0.01)
        _round_trips(client.fd, client.write, 3)  # connected: the keys reach the agent's PTY
        through = _round_trips(client.fd, client.write, samples)
        client.close(force=True)
    p99 = _p99(through)
    print(
        f"(e) keystroke -> echo through agent attach, {samples} keys: p99 {p99 * 1000:.1f} ms, "
        f"median {statistics.median(through) * 1000:.1f} ms; bare PTY p99 {_p99(floor) * 1000:.2f} ms "
        f"(target p99 <= 10 ms){_verdict(p99 <= 0.01)}; {_load()}"
    )


def _answered_wait(home: Path, between: Callable[[], object]) -> float:
    """One `agent wait --next` for the answerer's next prompt, `between` run before that prompt is
    asked for: the time from the host recording the change to the waiting CLI's exit."""
    env = os.environ | {"WARDIAN_HOME": str(home)}
    waiting = subprocess.Popen(
        [WARDIAN, "agent", "wait", "answerer", "--until", "idle", "--next", "--timeout", "60s"],
        stdout=subprocess.DEVNULL,
        env=env,
    )
    time.sleep(0.5)  # it has asked the host before the change comes (a benchmark, not a test)
    between()
    asked = time.time()
    _wardian(home, "send", "go", "--to", "answerer")
    exited = exited_at(waiting, 60, time.time)
    if waiting.returncode != 0:
        raise SystemExit("agent wait failed")
    recorded = [at for printed, at in _stamped_changes(home, "answerer") if printed >= asked]
    return exited - recorded[0]


def wait_exit(samples: int = 20) -> None:
    # Its turn's output, then the prompt a moment later, as a CLI's answer and its prompt come.
    answering = f"{PROMPT_LINE}; while read x; do echo got; sleep 0.05; {PROMPT_LINE}; done"
    with _bench_home() as home:
        _spawn(home, "answerer", answering, "--provider-setting", STAMPED_PROMPT)
        _wardian(home, "agent", "wait", "answerer", "--until", "idle", "--timeout", "60s")
        across = _answered_wait(home, lambda: _wardian(home, "host", "restart"))
        after = [_answered_wait(home, lambda: None) for _ in range(samples)]
    p99 = _p99(after)
    print(
        f"(f) status change -> waiting agent wait exits: across a host restart {across * 1000:.0f} ms; "
        f"on the new host p99 {p99 * 1000:.0f} ms of {samples} (target p99 <= 20 ms)"
        f"{_verdict(p99 <= 0.02 and across <= 0.02)}; {_load()}"
    )


FIGURES: dict[str, Callable[[argparse.Namespace], None]] = {
    "flood": lambda args: flood(args.flood_mb),
    "idle": lambda args: idle(args.idle_agents),
    "restart": lambda args: restart(args.agents),
    "status": lambda args: status_during_flood(args.flood_mb),
    "echo": lambda args: keystroke_echo(),
    "wait": lambda args: wait_exit(),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood-mb", type=int, default=200)
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--idle-agents", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=tuple(FIGURES), action="append")
    args = parser.parse_args()
    for name in args.only or FIGURES:
        for _ in range(args.rounds):
            FIGURES[name](args)


if __name__ == "__main__":
    main()
