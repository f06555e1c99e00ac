"""CLI start-up: median wall time of read commands beside floors measured in the same run.

Run with the interpreter the `wardian` command is installed in:
    .venv/bin/python benchmarks/cli_startup.py [--rounds N]

Floors: `python -c pass` and `python -c "import click, sqlite3, json, socket"` (what the
command cannot avoid: its CLI library, the database, JSON, the socket of the live path).
Targets are ratios to the second floor, except `send`'s, a ratio to `agent <name>`: a send
its host answers at once (a stand-in that answers every request, tests/support) should cost
about one read. Runs are interleaved so machine noise hits all alike.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from answering_host import answering_host
from stand_in_rows import stand_in_row

PYTHON = sys.executable
WARDIAN = str(Path(PYTHON).parent / "wardian")
AGENTS = 200

FLOORS = {
    "python -c pass": [PYTHON, "-c", "pass"],
    "import click, sqlite3, json, socket": [PYTHON, "-c", "import click, sqlite3, json, socket"],
}
FLOOR = "import click, sqlite3, json, socket"

SHOW = "wardian agent <name>"
# (label, argv after `wardian`, target ratio, what the ratio is to)
COMMANDS: list[tuple[str, list[str], float | None, str]] = [
    (SHOW, ["agent", "agent-100"], 1.25, FLOOR),
    (f"wardian agent list --scope all ({AGENTS} agents)", ["agent", "list", "--scope", "all"], 1.5, FLOOR),
    (
        "wardian send --wait-until idle, answered at once",
        ["send", "--to", "agent-100", "--wait-until", "idle", "hi"],
        1.3,
        SHOW,
    ),
    # The lifecycle verbs (spawn, wait, kill, pause, ...) share one path: the host's answer,
    # with no models loaded in the command.
    (
        "wardian agent wait --until idle, answered at once",
        ["agent", "wait", "a1", "--until", "idle"],
        1.3,
        SHOW,
    ),
    # Loads every installed provider plugin (pydantic, pluggy, entry points): no target, reported.
    ("wardian providers list (all installed providers)", ["providers", "list"], None, FLOOR),
]


def seed_home(home: Path) -> None:
    conn = open_writer(home)
    for index in range(AGENTS):
        created = identity.create_agent(
            conn, class_name="Coder", provider="generic", workspace=home, name=f"agent-{index}"
        )
        agent_rows.record_status(conn, created["uuid"], ("idle", "processing", "off")[index % 3])
    conn.close()


def time_once(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as scratch:
        home, send_home, wait_home = (Path(scratch) / name for name in ("home", "send-home", "wait-home"))
        seed_home(home)
        # Bytecode caches as an installed wardian has them (pip compiles on install): without them
        # every command compiles each module it imports, which the floors never do.
        plain = {k: v for k, v in os.environ.items() if not k.startswith("WARDIAN_") and k != "PYTHONDONTWRITEBYTECODE"}
        env, send_env = plain | {"WARDIAN_HOME": str(home)}, plain | {"WARDIAN_HOME": str(send_home)}
        wait_env = plain | {"WARDIAN_HOME": str(wait_home)}
        answered = {"send": send_env, "wait": wait_env}
        runs = {
            label: ([WARDIAN, *args], answered.get(args[1] if args[0] == "agent" else args[0], env))
            for label, args, _, _ in COMMANDS
        }
        runs |= {label: (argv, env) for label, argv in FLOORS.items()}
        samples: dict[str, list[float]] = {label: [] for label in runs}
        # The reads find no host in their home and read state.db; the send's and the wait's
        # homes have a stand-in host.
        with answering_host(send_home, {"results": []}), answering_host(wait_home, dict(stand_in_row(name="a1"))):
            for argv, run_env in runs.values():  # warm the page cache once
                time_once(argv, run_env)
            for _ in range(rounds):
                for label, (argv, run_env) in runs.items():
                    samples[label].append(time_once(argv, run_env))
    median = {label: statistics.median(values) * 1000 for label, values in samples.items()}
    print(f"cli_startup: median of {rounds} interleaved runs, python {sys.version.split()[0]}")
    for label in FLOORS:
        print(f"  floor  {label:<48} {median[label]:7.1f} ms")
    failed = False
    for label, _, target, base in COMMANDS:
        ratio = median[label] / median[base]
        against = "floor" if base == FLOOR else "agent <name>"
        if target is None:
            print(f"  {label:<55} {median[label]:7.1f} ms  {ratio:4.2f}x {against} (no target)")
            continue
        verdict = "ok" if ratio <= target else "OVER TARGET"
        failed |= ratio > target
        print(f"  {label:<55} {median[label]:7.1f} ms  {ratio:4.2f}x {against} (target <= {target}x)  {verdict}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
