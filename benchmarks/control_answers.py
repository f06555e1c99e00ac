"""The control round trip of the most used routes, as a client sees it (issue 52, item 7).

    .venv/bin/python benchmarks/control_answers.py [--agents 20] [--rounds 300]

A real host in a fresh home with `--agents` idle agents; each route below is asked `--rounds`
times on one connection, one after another: printed are p50 and p99 per route. What it
watches: serialising a handler's answer model at the door must not slow the hot path.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from wardian_core.control.client import ControlClient
from wardian_host.testing.hermetic import clean_environment
from wardian_host.testing.reaping import reap_home

WARDIAN = str(Path(sys.executable).parent / "wardian")


def _latencies(client: ControlClient, kind: str, params: dict[str, Any], rounds: int) -> list[float]:
    taken = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.request(kind, params, 30)
        taken.append((time.perf_counter() - started) * 1000)
    return sorted(taken)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="control-answers-") as scratch:
        root = Path(scratch)
        home, wardian_home, workspace = root / "home", root / "wardian-home", root / "workspace"
        for each in (home, wardian_home, workspace):
            each.mkdir()
        os.environ.update(clean_environment(dict(os.environ), home, wardian_home))
        subprocess.run([WARDIAN, "host", "start"], check=True, capture_output=True, timeout=120)
        try:
            with ControlClient.connect(wardian_home) as client:
                for index in range(args.agents):
                    launch = {"extra_args": ["cat"]}
                    params = {
                        "provider": "generic",
                        "class": "Bench",
                        "name": f"idle-{index}",
                        "workspace": str(workspace),
                        "launch_config": launch,
                    }
                    client.request("agent.spawn", params, 60)
                for index in range(args.agents):
                    client.request("agent.wait", {"target": f"idle-{index}", "until": "idle", "timeout": 60}, 90)
                routes: list[tuple[str, dict[str, Any]]] = [
                    ("host.status", {}),
                    ("agents.list", {}),
                    ("host.whoami", {}),
                    ("send", {"to": "idle-1", "text": "x"}),
                    ("agent.wait", {"target": "idle-0", "until": "idle", "timeout": 10}),
                ]
                for kind, params in routes:
                    taken = _latencies(client, kind, params, args.rounds)
                    p99 = taken[min(len(taken) - 1, int(len(taken) * 0.99))]
                    print(f"{kind:<14} p50 {statistics.median(taken):6.2f} ms  p99 {p99:6.2f} ms")
        finally:
            reap_home(wardian_home)


if __name__ == "__main__":
    main()
