"""Host figures, each printed beside a floor measured in the same run.

    .venv/bin/python benchmarks/host.py [--agents 100] [--idle-seconds 30] [--flood-mb 200] [--stalled-mb 150]
    WARDIAN_PTY_BACKEND=ptyprocess .venv/bin/python benchmarks/host.py   # the portable POSIX backend

(a) spawning N idle agents vs spawning the same command on N bare PTYs; host RSS
    (target <= 80 MB) and host CPU over an idle period (target <= 1% of a core);
(b) `wardian agent list` answered live by the host vs read from state.db (target <= 1.5x);
(c) one agent writing M MB to its terminal: the host's read rate vs a bare os.read loop
    on a PTY (target >= 0.5x), while the status latency of another agent stays < 50 ms;
    A client asks for the flooding agent's screen twice a second meanwhile, so the rate
    includes the terminal screen model's catch-ups;
(d) the latency from a provider event that makes an agent change status to the return
    of an already-waiting `wardian agent wait` (target p50 <= 5 ms, p99 <= 20 ms), and
    the cost of `wardian send --wait-until idle` on an agent that answers at once,
    beside `wardian agent <name>`;
(e) 50 Claude and Codex agents, each writing 100 KB/s of recorded real TUI output through
    its provider's real parser: another agent's status latency p99, beside the same
    figure with those agents up but quiet (target <= 2x the quiet figure, and < 50 ms), and
    the host's CPU parsing them (target <= 15 % of a core), over BUSY_CPU_SECONDS when
    nothing else asks the host anything. The CPU while the status probe runs (sends,
    waits, status changes: about 5 points more) is printed beside it, and the loop
    probe's own thread is never counted. Measured READY_SETTLE_SECONDS after the last agent
    is ready, once the looks their start-up asked for are done; that settle is printed apart.
(f) the host's peak RSS while one agent writes M MB (150 by default) to a `watch --follow`
    and an `attach` that both stopped reading, beside its RSS before (target < 150 MB).
(g) the round trip of `wardian ask` answered at once by a scripted agent (it runs
    `wardian reply` as soon as it reads the question), beside `wardian send --wait-until
    idle` on the same agent (target <= 3x: the reply costs one more `wardian` start).
(h) `host.status` answered while another client looks at an agent's screen of the largest
    size (1000 x 1000) again and again, beside the same figure without the looks (target
    p99 < 50 ms: a look must not hold the host's other requests).

The host runs under `loop_probe.py`: (c) and (e) also print the times its loop was held
more than 20 ms while they measured, naming the callback that held it and where it was.
`--profile FILE` runs the host under cProfile (slower: for where the time goes, not latency).
"""

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import psutil
from loop_probe import probe_state_file, probe_thread_file
from ptyprocess import PtyProcess

from wardian_core.control.client import ControlClient
from wardian_core.control.protocol import encode, request_frame
from wardian_core.roster import load_rows

WARDIAN = str(Path(sys.executable).parent / "wardian")
# After the last busy agent is ready, before (e) measures: the start-up's looks are done by then.
READY_SETTLE_SECONDS = 10.0
# (e)'s CPU with nothing but the busy agents' output to handle.
BUSY_CPU_SECONDS = 10.0
IDLE_COMMAND = ["cat"]  # waits for input, prints nothing: an idle agent
HERE = Path(__file__).resolve().parent
# Turns of real TUIs: start-up, a prompt, the model's streamed answer.
RECORDINGS = {
    "claude": HERE.parent / "providers/wardian-claude/tests/fixtures/recordings/claude-tui.raw",
    "codex": HERE.parent / "providers/wardian-codex/tests/fixtures/codex-tui-resume-thread.raw",
}


class Bench:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.stalls = home.parent / "loop-stalls.jsonl"
        kept = {k: v for k, v in os.environ.items() if not k.startswith("WARDIAN_") or k == "WARDIAN_PTY_BACKEND"}
        self.env = kept | {"WARDIAN_HOME": str(home)}
        self.workspace = home / "workspace"
        self.workspace.mkdir(parents=True)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([WARDIAN, *args], env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"wardian {' '.join(args)} failed: {done.stderr}")
        return done

    def request(self, kind: str, params: dict | None = None, timeout: float | None = 120) -> object:
        with ControlClient.connect(self.home) as client:
            return client.request(kind, params, timeout)

    def spawn(self, name: str, command: list[str], settings: dict | None = None, provider: str = "generic") -> None:
        launch = {"extra_args": command} | ({"settings": settings} if settings else {})
        params = {
            "provider": provider,
            "class": "Bench",
            "name": name,
            "workspace": str(self.workspace),
            "launch_config": launch,
        }
        self.request("agent.spawn", params)

    def wait(self, name: str, until: str, next_change: bool = False, timeout: float = 120) -> dict:
        return self.request("agent.wait", {"target": name, "until": until, "next": next_change, "timeout": timeout})


def start_probed_host(bench: Bench, profile: Path | None) -> subprocess.Popen[bytes]:
    """The host under the loop-lag probe, once it serves."""
    read_end, write_end = os.pipe()
    argv = [sys.executable, str(HERE / "loop_probe.py"), "--home", str(bench.home), "--report", str(bench.stalls)]
    argv += ["--ready-fd", str(write_end)] + (["--profile", str(profile)] if profile else [])
    host = subprocess.Popen(argv, env=bench.env, pass_fds=(write_end,), stdin=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        ready = answer.readline().decode().strip()
    if ready != "ready":
        raise SystemExit(f"the host did not start: {ready}")
    return host


@contextlib.contextmanager
def probe_paused(bench: Bench, host: psutil.Process) -> Iterator[None]:
    """The loop probe paused meanwhile (see `loop_probe`): an idle host's CPU is then its own."""
    _tell_probe(bench, host, signal.SIGUSR1, "paused")
    try:
        yield
    finally:
        _tell_probe(bench, host, signal.SIGUSR2, "watching")


def _tell_probe(bench: Bench, host: psutil.Process, signum: int, state: str) -> None:
    state_file = probe_state_file(bench.stalls)
    state_file.unlink(missing_ok=True)
    host.send_signal(signum)
    deadline = time.monotonic() + 10
    while not (state_file.exists() and state_file.read_text() == state):
        if time.monotonic() > deadline:
            raise SystemExit(f"the loop probe did not say {state!r}")
        time.sleep(0.01)


def loop_stalls(bench: Bench, since: float) -> None:
    """The host's loop held more than 20 ms since `since` (time.time()), by the callback holding it."""
    lines = bench.stalls.read_text().splitlines() if bench.stalls.exists() else []
    records = list(map(json.loads, lines))
    stalls = [stall for stall in records if stall.get("at", 0) >= since]
    full = [pause for pause in records if pause.get("gc_at", 0) >= since]
    if full:
        cpu, wall = max(pause["cpu_ms"] for pause in full), max(pause["ms"] for pause in full)
        print(f"  full collections: {len(full)}, CPU max {cpu:.1f} ms, wall max {wall:.1f} ms")
    held: dict[str, list[float]] = defaultdict(list)
    for stall in stalls:
        held[stall["callbacks"][0][0]].append(stall["ms"])
    gc_ms = sum(stall["gc_ms"] for stall in stalls)
    print(f"  loop held > 20 ms: {len(stalls)} times, {gc_ms:.0f} ms of it in the garbage collector")
    for callback, times in sorted(held.items(), key=lambda item: -max(item[1]))[:5]:
        print(f"    {len(times):>4} x, max {max(times):>7.1f} ms, total {sum(times):>8.1f} ms  {callback}")
    cpu, queued = sum(stall["cpu_ms"] for stall in stalls), sum(stall["runqueue_ms"] for stall in stalls)
    print(f"  of which the loop's thread ran {cpu:.0f} ms and waited for a CPU {queued:.0f} ms")
    for stall in sorted(stalls, key=lambda stall: -stall["ms"])[:3]:
        print(
            f"    longest {stall['ms']:.1f} ms (ran {stall['cpu_ms']}, queued {stall['runqueue_ms']},"
            f" gc {stall['gc_ms']} ms): {stall['stacks'][0][0]}; other threads {stall['other_threads'][:1]}"
        )


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def percentile_ms(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] * 1000


def line(label: str, value: str, floor: str, verdict: str) -> None:
    print(f"  {label:<52} {value:>14}   floor {floor:<22} {verdict}")


def bare_pty_spawns(count: int) -> float:
    started = time.perf_counter()
    children = [PtyProcess.spawn(IDLE_COMMAND) for _ in range(count)]
    elapsed = time.perf_counter() - started
    for child in children:
        child.terminate(force=True)
    return elapsed


def scale(bench: Bench, agents: int, idle_seconds: float) -> None:
    print(f"(a) {agents} idle agents")
    started = time.perf_counter()
    for index in range(agents):
        bench.spawn(f"idle-{index}", IDLE_COMMAND)
    spawn_seconds = time.perf_counter() - started
    for index in range(agents):
        bench.wait(f"idle-{index}", "idle")
    floor = bare_pty_spawns(agents)
    line(
        f"spawn {agents} agents (through the host)",
        f"{spawn_seconds:.2f} s",
        f"{floor:.2f} s bare PTYs",
        f"{spawn_seconds / agents * 1000:.1f} ms/agent",
    )
    host = psutil.Process(int(bench.request("host.status")["pid"]))
    rss = host.memory_info().rss / 2**20
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, wardian_host.daemon.host;print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
        ],
        capture_output=True,
        text=True,
        env=bench.env,
    )
    import_floor = int(probe.stdout.strip()) / 1024
    line(
        f"host RSS with {agents} agents",
        f"{rss:.1f} MB",
        f"{import_floor:.1f} MB imports",
        "ok (<= 80 MB)" if rss <= 80 else "OVER TARGET",
    )
    with probe_paused(bench, host):  # its beat is 100 callbacks a second: ~2 % of a core
        before = host.cpu_times()
        time.sleep(idle_seconds)  # the measurement itself: the host must stay quiet meanwhile
        after = host.cpu_times()
    cpu = max(0.0, after.user + after.system - before.user - before.system) / idle_seconds * 100
    line(
        f"host CPU over {idle_seconds:.0f} idle s",
        f"{cpu:.2f} %",
        "0 % (no polling)",
        "ok (<= 1%)" if cpu <= 1 else "OVER TARGET",
    )


def list_live_vs_db(bench: Bench, rounds: int = 15) -> None:
    print("(b) agent list: live host vs state.db")
    live = []
    for _ in range(rounds):
        started = time.perf_counter()
        bench.cli("agent", "list", "--scope", "all")
        live.append(time.perf_counter() - started)
    return live


def spawn_probe(bench: Bench, name: str) -> None:
    """A shell whose prompt ends each turn at once, so probes follow each other quickly."""
    bench.spawn(name, ["sh", "-c", "PS1='P> ' exec sh -i"], settings={"prompt_pattern": "P> $"})
    bench.wait(name, "idle")


def probe_latency(bench: Bench, name: str) -> float:
    """Seconds from a keystroke to the waiting client woken by the status it caused."""
    woken: list[float] = []
    waiter = threading.Thread(
        target=lambda: (bench.wait(name, "processing", True, 30), woken.append(time.perf_counter()))
    )
    waiter.start()
    time.sleep(0.05)  # let the waiter's request reach the host first
    started = time.perf_counter()
    bench.request("send", {"to": name, "text": "true"})  # returns after the submit key's settle delay
    waiter.join()
    bench.wait(name, "idle", timeout=30)
    return woken[0] - started  # keystroke -> echo -> parser -> status -> waiter


def probe_until(bench: Bench, name: str, stop: threading.Event, latencies: list[float]) -> None:
    while not stop.is_set():
        latencies.append(probe_latency(bench, name))


def look_at_screen_until(bench: Bench, name: str, stop: threading.Event, looks: list[int]) -> None:
    while not stop.wait(0.5):
        try:
            bench.request("agent.screen", {"target": name}, timeout=30)
            looks.append(1)
        except Exception:  # noqa: BLE001 - the agent may have ended between two looks
            return


def flood(bench: Bench, megabytes: int) -> None:
    print(f"(c) one agent writing {megabytes} MB to its terminal, its screen looked at twice a second")
    size = megabytes * 1_000_000
    command = ["sh", "-c", f"head -c {size} /dev/zero | tr '\\0' 'x'; echo; sleep 1; exit 0"]
    spawn_probe(bench, "probe")
    since = time.time()
    latencies: list[float] = []
    looks: list[int] = []
    stop = threading.Event()
    prober = threading.Thread(target=probe_until, args=(bench, "probe", stop, latencies))
    started = time.perf_counter()
    bench.spawn("flood", command)
    looker = threading.Thread(target=look_at_screen_until, args=(bench, "flood", stop, looks))
    prober.start()
    looker.start()
    bench.wait("flood", "off", timeout=600)
    host_seconds = time.perf_counter() - started - 1.0  # minus the trailing sleep
    stop.set()
    prober.join()
    looker.join()
    bare_started = time.perf_counter()
    child = PtyProcess.spawn(["sh", "-c", f"head -c {size} /dev/zero | tr '\\0' 'x'"])
    while True:
        try:
            if not os.read(child.fd, 65536):
                break
        except OSError:
            break
    bare_seconds = time.perf_counter() - bare_started
    child.close()
    host_rate, bare_rate = megabytes / host_seconds, megabytes / bare_seconds
    ratio = host_rate / bare_rate
    line(
        "host read rate",
        f"{host_rate:.0f} MB/s",
        f"{bare_rate:.0f} MB/s os.read",
        f"{ratio:.2f}x " + ("ok (>= 0.5x)" if ratio >= 0.5 else "UNDER TARGET") + f", {len(looks)} screen looks",
    )
    if latencies:
        worst = max(latencies) * 1000
        line(
            "other agent's status latency during the flood",
            f"p50 {median_ms(latencies):.1f} ms",
            f"max {worst:.1f} ms (n={len(latencies)})",
            "ok (< 50 ms)" if worst < 50 else "OVER TARGET",
        )
    loop_stalls(bench, since)


def _stalled_client(bench: Bench, kind: str, params: dict) -> socket.socket:
    """A streaming request whose client never reads: the host may keep nothing for it."""
    sock = ControlClient.connect(bench.home).raw_socket()
    sock.sendall(encode(request_frame(1, kind, params)))
    return sock


class HostCpu:
    """The host's CPU, without the loop probe's watchdog thread (the benchmark's instrument)."""

    def __init__(self, host: psutil.Process, bench: Bench) -> None:
        self._host = host
        self._probe_tid = int(probe_thread_file(bench.stalls).read_text())

    def seconds(self) -> float:
        times = self._host.cpu_times()
        threads = self._host.threads()
        probe = sum(thread.user_time + thread.system_time for thread in threads if thread.id == self._probe_tid)
        return times.user + times.system - probe

    def mark(self) -> tuple[float, float]:
        return self.seconds(), time.perf_counter()

    def percent_since(self, mark: tuple[float, float]) -> float:
        cpu, wall = mark
        return (self.seconds() - cpu) / (time.perf_counter() - wall) * 100


def _peak_rss(process: psutil.Process, stop: threading.Event, peak: list[float]) -> None:
    while not stop.wait(0.02):
        peak[0] = max(peak[0], process.memory_info().rss / 2**20)


def stalled_readers(bench: Bench, megabytes: int) -> None:
    print(f"(f) one agent writing {megabytes} MB to a follower and an attach that stopped reading")
    size = megabytes * 1_000_000
    bench.spawn("stalled", ["sh", "-c", f"read go; head -c {size} /dev/zero | tr '\\0' 's'; echo; exit 0"])
    bench.wait("stalled", "idle")
    host = psutil.Process(int(bench.request("host.status")["pid"]))
    before = host.memory_info().rss / 2**20
    clients = [
        _stalled_client(bench, "agent.watch", {"target": "stalled", "follow": True}),
        _stalled_client(bench, "agent.attach", {"target": "stalled", "read_only": True}),
    ]
    peak, stop = [before], threading.Event()
    sampler = threading.Thread(target=_peak_rss, args=(host, stop, peak))
    sampler.start()
    bench.request("send", {"to": "stalled", "text": "go"})
    bench.wait("stalled", "off", timeout=600)
    stop.set()
    sampler.join()
    for client in clients:
        client.close()
    line(
        "host peak RSS, a stalled follower and attach",
        f"{peak[0]:.1f} MB",
        f"{before:.1f} MB before the flood",
        "ok (< 150 MB)" if peak[0] < 150 else "OVER TARGET",
    )


def _status_latencies(bench: Bench, rounds: int) -> list[float]:
    latencies = []
    for _ in range(rounds):
        started = time.perf_counter()
        bench.request("host.status")
        latencies.append(time.perf_counter() - started)
    return latencies


def _resize_by_attach(bench: Bench, name: str, rows: int, cols: int) -> None:
    """An attach that sets the agent's size and detaches at once."""
    sock = ControlClient.connect(bench.home).raw_socket()
    sock.sendall(encode(request_frame(1, "agent.attach", {"target": name, "rows": rows, "cols": cols})))
    sock.sendall(encode({"detach": True}))
    with sock, sock.makefile("rb") as answers:
        for answer in answers:
            if b'"ok"' in answer:
                return


def big_screen_looks(bench: Bench, rounds: int = 300) -> None:
    print("(h) host.status while another client looks at a 1000 x 1000 screen")
    bench.spawn("wide", ["cat"])
    bench.wait("wide", "idle")
    _resize_by_attach(bench, "wide", 1000, 1000)
    bench.request("send", {"to": "wide", "text": "x" * 900})  # a row drawn across the width
    floor = _status_latencies(bench, rounds)
    stop, looks = threading.Event(), [0]

    def look() -> None:
        while not stop.is_set():
            bench.request("agent.screen", {"target": "wide"}, timeout=30)
            looks[0] += 1

    looker = threading.Thread(target=look)
    looker.start()
    measured = _status_latencies(bench, rounds)
    stop.set()
    looker.join()
    p99 = percentile_ms(measured, 0.99)
    line(
        f"host.status p50 / p99 beside {looks[0]} screen looks",
        f"{median_ms(measured):.1f} / {p99:.1f} ms",
        f"{median_ms(floor):.1f} / {percentile_ms(floor, 0.99):.1f} ms alone",
        "ok (p99 < 50 ms)" if p99 < 50 else "OVER TARGET",
    )


def wait_latency(bench: Bench, rounds: int = 20) -> None:
    print("(d) a waiting `wardian agent wait` woken by a status change")
    bench.spawn("echo", IDLE_COMMAND)
    bench.wait("echo", "idle")
    latencies = []
    for _ in range(rounds):
        waiter = subprocess.Popen(
            [WARDIAN, "agent", "wait", "echo", "--until", "processing", "--next"],
            env=bench.env,
            stdout=subprocess.PIPE,
            text=True,
        )
        exited: list[float] = []
        watcher = threading.Thread(
            target=lambda waiter=waiter, exited=exited: (waiter.communicate(timeout=30), exited.append(time.time()))
        )
        watcher.start()
        time.sleep(0.4)  # the CLI starts and parks its request in the host
        bench.request("send", {"to": "echo", "text": "y"})
        watcher.join()
        echo = next(agent for agent in load_rows(bench.home)[0] if agent["name"] == "echo")
        changed_at = datetime.fromisoformat(echo["last_status_at"].replace("Z", "+00:00")).timestamp()
        latencies.append(exited[0] - changed_at)  # status stored -> the waiting CLI has exited
        bench.wait("echo", "idle")
    p50, p99 = median_ms(latencies), percentile_ms(latencies, 0.99)
    line(
        "status change -> waiting CLI has returned",
        f"p50 {p50:.1f} ms",
        f"p99 {p99:.1f} ms (n={rounds})",
        "ok (p50 <= 5, p99 <= 20)" if p50 <= 5 and p99 <= 20 else "OVER TARGET",
    )
    bench.spawn("prompt", ["sh", "-c", "PS1='READY> ' exec sh -i"], settings={"prompt_pattern": "READY> $"})
    bench.wait("prompt", "idle")
    sends, shows = [], []
    for _ in range(10):
        started = time.perf_counter()
        bench.cli("send", "true", "--to", "prompt", "--wait-until", "idle", "--timeout", "30s")
        sends.append(time.perf_counter() - started)
        started = time.perf_counter()
        bench.cli("agent", "prompt")
        shows.append(time.perf_counter() - started)
    line(
        "wardian send --wait-until idle (answers at once)",
        f"{median_ms(sends):.1f} ms",
        f"{median_ms(shows):.1f} ms agent <name>",
        f"{median_ms(sends) / median_ms(shows):.2f}x",
    )


def ask_round_trip(bench: Bench, rounds: int = 10) -> None:
    print("(g) `wardian ask` answered at once by a scripted agent")
    answering = [sys.executable, "-m", "wardian_host.testing.answering_agent"]
    bench.spawn("answers", answering, settings={"prompt_pattern": "answering> $"})
    bench.wait("answers", "idle")
    asks, sends = [], []
    for index in range(rounds):
        started = time.perf_counter()
        answer = bench.cli("ask", "answers", f"question {index}", "--timeout", "30s")
        asks.append(time.perf_counter() - started)
        if '"status": "done"' not in answer.stdout:
            raise SystemExit(f"the ask was not answered: {answer.stdout}")
        bench.wait("answers", "idle")
        started = time.perf_counter()
        bench.cli("send", f"note {index}", "--to", "answers", "--wait-until", "idle", "--timeout", "30s")
        sends.append(time.perf_counter() - started)
    ratio = median_ms(asks) / median_ms(sends)
    line(
        "wardian ask -> structured reply (answers at once)",
        f"{median_ms(asks):.1f} ms",
        f"{median_ms(sends):.1f} ms send --wait-until",
        f"{ratio:.2f}x " + ("ok (<= 3x)" if ratio <= 3 else "OVER TARGET"),
    )


def busy_parsers(bench: Bench, agents: int, rate: int, rounds: int = 100) -> None:
    print(f"(e) {agents} Claude and Codex agents writing {rate // 1000} KB/s each through their parsers")
    go_file = bench.home / "replay-go"
    for index in range(agents):
        provider = "codex" if index % 2 else "claude"
        bench.spawn(f"{provider}-{index}", [], provider=provider)
    spawn_probe(bench, "busy-probe")
    quiet = [probe_latency(bench, "busy-probe") for _ in range(rounds)]
    host = psutil.Process(int(bench.request("host.status")["pid"]))
    go_file.touch()
    try:
        # Every replayer starts with its CLI's start-up screen, all at once: a burst of first
        # looks at 50 screens that is no steady state; measured once every agent is ready.
        started = time.perf_counter()
        for index in range(agents):
            bench.wait(f"{'codex' if index % 2 else 'claude'}-{index}", "idle", timeout=600)
        print(f"  every busy agent ready {time.perf_counter() - started:.1f} s after its first output")
        # The looks the start-up asked for (50 agents' prompts, each replayed up to 64 KiB) are
        # still being taken for a few seconds: printed apart, then the steady state is measured.
        host_cpu = HostCpu(host, bench)
        settle = host_cpu.mark()
        time.sleep(READY_SETTLE_SECONDS)
        settle_cpu = host_cpu.percent_since(settle)
        since, busy_started = time.time(), time.perf_counter()
        busy_cpu = host_cpu.mark()
        rss_before, peak, stop = host.memory_info().rss / 2**20, [0.0], threading.Event()
        sampler = threading.Thread(target=_peak_rss, args=(host, stop, peak))
        sampler.start()
        busy = [probe_latency(bench, "busy-probe") for _ in range(rounds)]
        probed_cpu = host_cpu.percent_since(busy_cpu)
        parsing_only = host_cpu.mark()
        time.sleep(BUSY_CPU_SECONDS)
        cpu = host_cpu.percent_since(parsing_only)
        stop.set()
        sampler.join()
        rss_after = host.memory_info().rss / 2**20
    finally:
        go_file.unlink()
    quiet_p99, busy_p99 = percentile_ms(quiet, 0.99), percentile_ms(busy, 0.99)
    ok = busy_p99 <= 2 * quiet_p99 and busy_p99 < 50
    line(
        "another agent's status latency, parsers busy",
        f"p99 {busy_p99:.1f} ms",
        f"p99 {quiet_p99:.1f} ms quiet (n={rounds})",
        f"{busy_p99 / quiet_p99:.2f}x " + ("ok (<= 2x, < 50 ms)" if ok else "OVER TARGET"),
    )
    line(
        f"host CPU, parsers busy ({BUSY_CPU_SECONDS:g} s, nothing asked)",
        f"{cpu:.0f} %",
        f"{agents * rate / 1e6:.1f} MB/s parsed",
        "ok (<= 15 %)" if cpu <= 15 else "OVER TARGET",
    )
    print(f"  {'host CPU, parsers busy, the status probe running':<52} {probed_cpu:>12.0f} %")
    settled = f"host CPU, the {READY_SETTLE_SECONDS:g} s after ready (before measuring)"
    print(f"  {settled:<52} {settle_cpu:>12.0f} %   the looks the start-up asked for, ending")
    # Full collections wait for a quiet moment (at most two minutes): garbage must not pile up meanwhile.
    line(
        f"host RSS over {time.perf_counter() - busy_started:.0f} s busy",
        f"{rss_after:.1f} MB",
        f"{rss_before:.1f} MB before, peak {peak[0]:.1f}",
        "",
    )
    loop_stalls(bench, since)


def replayer_executables(scratch: Path, go_file: Path, rate: int) -> dict[str, str]:
    """WARDIAN_<PROVIDER>_EXECUTABLE for each replayed provider: its recording, forever."""
    env = {}
    for provider, recording in RECORDINGS.items():
        script = scratch / f"{provider}-replayer"
        replayer = HERE / "replay_recording.py"
        script.write_text(f"#!/bin/sh\nexec {sys.executable} {replayer} {recording} {rate} {go_file}\n")
        script.chmod(0o755)
        env[f"WARDIAN_{provider.upper()}_EXECUTABLE"] = str(script)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=30)
    parser.add_argument("--flood-mb", type=int, default=200)
    parser.add_argument("--busy-agents", type=int, default=50)
    parser.add_argument("--busy-rate", type=int, default=100_000, help="bytes per second per busy agent")
    parser.add_argument("--busy-rounds", type=int, default=100, help="status probes while busy (a long run: 3000)")
    parser.add_argument("--stalled-mb", type=int, default=150, help="the flood read by nobody, in MB")
    parser.add_argument("--sections", default="abcdefgh", help="which figures to measure, e.g. ce")
    parser.add_argument("--profile", type=Path, help="cProfile stats of the host, written at its exit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        bench = Bench(Path(scratch) / "home")
        bench.env |= replayer_executables(Path(scratch), bench.home / "replay-go", args.busy_rate)
        host = start_probed_host(bench, args.profile)
        print(f"terminal backend: {bench.request('host.status')['pty_backend']}")
        try:
            if "a" in args.sections:
                scale(bench, args.agents, args.idle_seconds)
            live = list_live_vs_db(bench) if "b" in args.sections else []
            if "d" in args.sections:
                wait_latency(bench)
            if "c" in args.sections:
                flood(bench, args.flood_mb)
            if "e" in args.sections:
                busy_parsers(bench, args.busy_agents, args.busy_rate, args.busy_rounds)
            if "f" in args.sections:
                stalled_readers(bench, args.stalled_mb)
            if "g" in args.sections:
                ask_round_trip(bench)
            if "h" in args.sections:
                big_screen_looks(bench)
        finally:
            bench.cli("host", "stop")
            host.wait()
        if not live:
            return
        persisted = []
        for _ in range(len(live)):
            started = time.perf_counter()
            bench.cli("agent", "list", "--scope", "all")
            persisted.append(time.perf_counter() - started)
        ratio = median_ms(live) / median_ms(persisted)
        line(
            f"agent list live ({args.agents}+ agents)",
            f"{median_ms(live):.1f} ms",
            f"{median_ms(persisted):.1f} ms state.db",
            f"{ratio:.2f}x " + ("ok (<= 1.5x)" if ratio <= 1.5 else "OVER TARGET"),
        )


if __name__ == "__main__":
    main()
