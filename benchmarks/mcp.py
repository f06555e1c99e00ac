"""`wardian mcp`, the relay each agent's CLI starts, against a host that serves the tools.

Run with the interpreter the `wardian` command is installed in:
    .venv/bin/python benchmarks/mcp.py [--rounds N] [--agents N]

Each figure is printed beside its floor, measured in the same run, and its target:
- the relay's start to the answer of `initialize`, wall and CPU: floor `python -c pass`;
  targets 100 ms and 0.1 s of CPU;
- the relay's resident memory once it answered: target 15 MB (floor: `python -c pass`'s);
- fifty relays started at once, each initializing, listing the tools and calling `whoami`:
  their CPU together, target 5 s (about 65 s with the SDK in every relay), and the host's;
- a `tools/call` of `whoami` in a running session, round trip p50: target 5 ms; floor a
  `host.status` request on an open control connection.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

PYTHON = sys.executable
WARDIAN = str(Path(PYTHON).parent / "wardian")
RELAY = [PYTHON, "-m", "wardian_host", "mcp"]
HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}


def line(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def ask(stdin: IO[bytes], stdout: IO[bytes], message: bytes) -> dict[str, Any]:
    stdin.write(message)
    stdin.flush()
    answer: dict[str, Any] = json.loads(stdout.readline())
    return answer


def cpu_of(pid: int) -> tuple[float, int]:
    """(CPU seconds, peak resident KB) of a child that has exited, from wait4's rusage."""
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def rss_kb(pid: int) -> int:
    for text in Path(f"/proc/{pid}/status").read_text().splitlines():
        if text.startswith("VmRSS:"):
            return int(text.split()[1])
    return 0


def relay_start() -> tuple[float, float, int]:
    """(seconds from spawn to `initialize` answered, the relay's CPU seconds, its RSS KB then)."""
    started = time.perf_counter()
    relay = subprocess.Popen(RELAY, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert relay.stdin is not None and relay.stdout is not None
    ask(relay.stdin, relay.stdout, line(1, "initialize", HELLO))
    wall = time.perf_counter() - started
    rss = rss_kb(relay.pid)
    relay.stdin.close()
    cpu, _ = cpu_of(relay.pid)
    relay.returncode = 0  # reaped by wait4
    return wall, cpu, rss


def floor_rss() -> int:
    """`python -c pass`'s resident KB, held open on its stdin so it can be read."""
    process = subprocess.Popen([PYTHON, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    assert process.stdin is not None
    time.sleep(0.05)  # the interpreter's start; its memory is what it holds then
    rss = rss_kb(process.pid)
    process.stdin.close()
    process.wait()
    return rss


def pass_time() -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([PYTHON, "-c", "pass"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - started, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def host_cpu(home: Path) -> float:
    pid = int(
        json.loads(subprocess.run([WARDIAN, "host", "status"], capture_output=True, check=True).stdout)["host"]["pid"]
    )
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fifty_at_once(home: Path, count: int) -> tuple[float, float, float]:
    """(wall seconds, the relays' CPU seconds together, the host's CPU seconds meanwhile)."""
    host_before = host_cpu(home)
    started = time.perf_counter()
    relays = [subprocess.Popen(RELAY, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(count)]
    for relay in relays:
        assert relay.stdin is not None
        relay.stdin.write(
            line(1, "initialize", HELLO) + line(None, "notifications/initialized") + line(2, "tools/list")
        )
        relay.stdin.write(line(3, "tools/call", {"name": "whoami", "arguments": {}}))
        relay.stdin.flush()
    for relay in relays:
        assert relay.stdout is not None and relay.stdin is not None
        answers = [json.loads(relay.stdout.readline()) for _ in range(3)]
        assert answers[-1]["id"] == 3 and not answers[-1]["result"].get("isError"), answers[-1]
        relay.stdin.close()
    total = 0.0
    for relay in relays:
        total += cpu_of(relay.pid)[0]
        relay.returncode = 0
    return time.perf_counter() - started, total, host_cpu(home) - host_before


def round_trips(rounds: int) -> tuple[list[float], list[float]]:
    """`whoami` tool calls in one session, and `host.status` on one control connection."""
    from wardian_core import paths
    from wardian_core.control.client import ControlClient

    relay = subprocess.Popen(RELAY, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert relay.stdin is not None and relay.stdout is not None
    ask(relay.stdin, relay.stdout, line(1, "initialize", HELLO))
    calls = []
    for number in range(rounds):
        started = time.perf_counter()
        ask(relay.stdin, relay.stdout, line(10 + number, "tools/call", {"name": "whoami", "arguments": {}}))
        calls.append(time.perf_counter() - started)
    relay.stdin.close()
    relay.wait()
    floors = []
    with ControlClient.connect(paths.wardian_home()) as client:
        for _ in range(rounds):
            started = time.perf_counter()
            client.request("host.status")
            floors.append(time.perf_counter() - started)
    return calls, floors


def report(name: str, value: float, unit: str, floor: float, target: float) -> None:
    over = "  OVER TARGET" if value > target else ""
    print(f"{name:<48} {value:9.3f} {unit:<3} floor {floor:9.3f} {unit:<3} target <= {target:g} {unit}{over}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--agents", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wardian-bench-mcp-") as folder:
        home = Path(folder) / "home"
        os.environ["WARDIAN_HOME"] = str(home)
        subprocess.run([WARDIAN, "host", "start"], check=True, capture_output=True)
        try:
            starts = [relay_start() for _ in range(args.rounds)]
            floors = [floor_rss() for _ in range(args.rounds)]
            passes = [pass_time() for _ in range(args.rounds)]
            wall, relays_cpu, host_spent = fifty_at_once(home, args.agents)
            calls, call_floors = round_trips(max(args.rounds * 10, 50))
        finally:
            subprocess.run([WARDIAN, "host", "stop"], capture_output=True)
    median = statistics.median
    print(f"wardian mcp (relay), {args.rounds} rounds; {args.agents} relays at once")
    report(
        "relay start to initialize answered, median",
        median(s[0] for s in starts) * 1000,
        "ms",
        median(p[0] for p in passes) * 1000,
        100,
    )
    report(
        "relay CPU to initialize answered, median", median(s[1] for s in starts), "s", median(p[1] for p in passes), 0.1
    )
    report("relay resident memory, median", median(s[2] for s in starts) / 1024, "MB", median(floors) / 1024, 15)
    report(
        f"{args.agents} relays at once: their CPU together",
        relays_cpu,
        "s",
        args.agents * median(p[1] for p in passes),
        5,
    )
    print(f"{'':<48} (wall {wall:.2f} s; the host spent {host_spent:.2f} s of CPU serving them)")
    report("tools/call whoami round trip, p50", median(calls) * 1000, "ms", median(call_floors) * 1000, 5)


if __name__ == "__main__":
    main()
