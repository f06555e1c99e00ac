"""Terminal server figures (issue 32), each printed beside its floor measured in the same run.

    .venv/bin/python benchmarks/terminal_server.py [--flood-mb 200] [--agents 50]
    WARDIAN_PTY_BACKEND=ptyprocess .venv/bin/python benchmarks/terminal_server.py

(a) one agent writing M MB: the rate its output reaches the host's side (a `ServerPtys`
    client, as the host holds it) through the terminal server, vs a bare os.read loop on a
    PTY running the same command (target >= 0.5x);
(c) N idle agents (`cat`): RSS of host + terminal server (target <= 80 MB) and their CPU over
    10 idle seconds (target <= 1 % of a core);
(b) `wardian host restart` with N agents: the time from the new host answering until every
    agent has echoed a line typed to it (target p99 <= 1 s), and the lines lost or doubled
    across the restart, read back with `wardian agent watch` (target 0).
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ptyprocess import PtyProcess

from wardian_core import paths
from wardian_core.pty_backend import chosen_backend
from wardian_host.terminal.server import process as server_process
from wardian_host.terminal.server.server import TerminalServer
from wardian_host.terminal.server_client import ServerPtys

WARDIAN = str(Path(sys.executable).parent / "wardian")


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
    server = TerminalServer(server_process.socket_path(home), chosen_backend())
    await server.start()
    client = await ServerPtys.connect(home)
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
    await client.close()
    await server.close()
    return received / 1024 / 1024 / elapsed


def flood(megabytes: int) -> None:
    floor = bare_read_rate(megabytes)
    with tempfile.TemporaryDirectory() as home:
        rate = asyncio.run(_through_server(Path(home), megabytes))
    verdict = "" if rate >= 0.5 * floor else "  OVER TARGET"
    print(
        f"(a) {megabytes} MB flood: {rate:.0f} MB/s through the server, bare os.read {floor:.0f} MB/s, "
        f"ratio {rate / floor:.2f} (target >= 0.5){verdict}"
    )


def _wardian(home: Path, *args: str) -> dict:
    done = subprocess.run(
        [WARDIAN, *args], capture_output=True, text=True, env=os.environ | {"WARDIAN_HOME": str(home)}
    )
    if done.returncode != 0:
        raise SystemExit(f"wardian {' '.join(args)}: {done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else {}


def restart(agents: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        names = [f"echo-{index}" for index in range(agents)]
        script = 'n=0; while read x; do n=$((n+1)); echo "line-$n"; done'
        for name in names:
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
        _wardian(home, "host", "restart")
        answered = time.perf_counter()
        waits = []
        for name in names:  # each agent takes input: its echo comes back through the new host
            waits.append(
                subprocess.Popen(
                    [WARDIAN, "agent", "watch", name, "--until", "output:line-2", "--timeout", "30s"],
                    stdout=subprocess.DEVNULL,
                    env=os.environ | {"WARDIAN_HOME": str(home)},
                )
            )
        time.sleep(1.0)  # the watches are registered before the lines are typed (a benchmark, not a test)
        typed = time.perf_counter()
        sends = [  # typed to every agent at once: the figure is each echo's wait, not 50 CLI starts in a row
            subprocess.Popen(
                [WARDIAN, "send", "after", "--to", name],
                stdout=subprocess.DEVNULL,
                env=os.environ | {"WARDIAN_HOME": str(home)},
            )
            for name in names
        ]
        latencies = []
        for wait in waits:
            wait.wait()
            latencies.append(time.perf_counter() - typed)
        for send in sends:
            send.wait()
        bad = 0
        for name in names:
            output = _wardian(home, "agent", "watch", name, "--since", "0")["watch"]["output"]
            bad += sum(abs(output.count(f"line-{n}\n") - 1) for n in (1, 2))
        _wardian(home, "host", "stop")
    p99 = statistics.quantiles(latencies, n=100)[98] if len(latencies) > 1 else latencies[0]
    verdict = "" if p99 <= 1.0 else "  OVER TARGET"
    print(
        f"(b) host restart, {agents} agents: each echoed input typed to all at once, p99 {p99 * 1000:.0f} ms "
        f"({(typed - answered):.1f} s after the new host answered; target p99 <= 1 s){verdict}; "
        f"lines lost or doubled: {bad} (target 0)"
    )


def idle(agents: int, seconds: float = 10.0) -> None:
    import psutil

    from wardian_host.daemon.host_lock import running_host_pid

    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
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
        rss = sum(process.memory_info().rss for process in processes) / 1024 / 1024
        _wardian(home, "host", "stop")
    cpu = used / seconds * 100
    verdict = "" if rss <= 80 and cpu <= 1 else "  OVER TARGET"
    print(
        f"(c) {agents} idle agents: host + terminal server RSS {rss:.0f} MB (target <= 80), "
        f"CPU {cpu:.2f} % over {seconds:.0f} s (target <= 1 %){verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood-mb", type=int, default=200)
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--idle-agents", type=int, default=100)
    parser.add_argument("--only", choices=("flood", "idle", "restart"))
    args = parser.parse_args()
    if args.only in (None, "flood"):
        flood(args.flood_mb)
    if args.only in (None, "idle"):
        idle(args.idle_agents)
    if args.only in (None, "restart"):
        restart(args.agents)


if __name__ == "__main__":
    main()
