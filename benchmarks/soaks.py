"""The suite's soak and crash loops at their full counts: every commit runs fewer rounds.

    .venv/bin/python benchmarks/soaks.py [-k crash]

Runs, one after the other in one process each (`pytest -n 0`): the host crash rounds at issue
32's ten kills of the host under twenty bursting agents, and the control-frame fuzzer at its
3,600 connections. Prints each soak's count, its wall time and its outcome: the target is a
pass, anything else is OVER TARGET with pytest's last lines. A failure reproduces from the
fuzzer's seed (WARDIAN_FUZZ_SEED) or by running the test again at the count printed.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (test file, the variable that sets its count, the full count)
SOAKS = {
    "crash rounds": ("tests/e2e/test_host_crash_rounds.py", "WARDIAN_CRASH_ROUNDS", 10),
    "control fuzz": ("tests/e2e/test_control_fuzz.py", "WARDIAN_FUZZ_CONNECTIONS", 3600),
}


def run_soak(test_file: str, variable: str, count: int) -> tuple[float, int, str]:
    """(seconds, pytest's exit code, its last lines) of one soak at `count`."""
    env = os.environ | {variable: str(count)}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly", test_file]
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = "\n".join(done.stdout.strip().splitlines()[-15:])
    return time.monotonic() - started, done.returncode, tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", default="", help="run only the soaks whose name contains this")
    args = parser.parse_args()
    missed = 0
    for name, (test_file, variable, count) in SOAKS.items():
        if args.k not in name:
            continue
        seconds, code, tail = run_soak(test_file, variable, count)
        verdict = "passed (target: pass)" if code == 0 else f"exit {code} (target: pass) OVER TARGET\n{tail}"
        missed += code != 0
        print(f"{name}: {variable}={count}, {seconds:.1f} s, {verdict}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
