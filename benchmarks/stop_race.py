"""Spawns racing `wardian host stop` (issue 46, item 7): how many agent processes outlive the host.

    .venv/bin/python benchmarks/stop_race.py [--rounds 20] [--spawns 7] [--delay 0.15] [--after-first]

Each round starts a host in a fresh home, starts `--spawns` `wardian agent spawn`s at once of an
agent that ignores SIGHUP and SIGTERM (only SIGKILL ends it), runs `wardian host stop` `--delay`
seconds later, and once every command has returned counts the processes still carrying the
home, and the agents state.db does not call `off`. Target: 0 of both in every round. Prints
each round, then the totals, and how the spawns were answered (spawned, or `host_stopping`).
`--after-first` counts the delay from the moment the host launched the first spawn's agent: on a loaded
machine the CLIs start slower than a host with no agent stops, and a spawn that comes after
the stop has ended rightly starts a new host (such rounds are counted apart, as `new host`).
"""

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from stop_race import race_round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--spawns", type=int, default=7)
    parser.add_argument("--delay", type=float, default=0.15)
    parser.add_argument("--after-first", action="store_true")
    args = parser.parse_args()
    left = not_off = failed_stops = new_hosts = 0
    answers: Counter[str] = Counter()
    for number in range(1, args.rounds + 1):
        outcome = race_round(args.spawns, args.delay, args.after_first)
        if outcome.new_host:
            new_hosts += 1
            print(f"round {number}: new host (the spawns came after the stop), {dict(outcome.answers)}")
            continue
        left += len(outcome.left)
        not_off += len(outcome.not_off)
        failed_stops += outcome.stop_exit != 0
        answers += outcome.answers
        print(
            f"round {number}: {len(outcome.left)} processes left {outcome.left}, not off {outcome.not_off}, "
            f"spawns {dict(outcome.answers)}, host stop exit {outcome.stop_exit}",
            flush=True,
        )
    print(
        f"{args.rounds} runs: {left} processes left, {not_off} agents not off in state.db, "
        f"{failed_stops} failed host stops, {new_hosts} rounds not counted (new host); spawns {dict(answers)} "
        "(target: 0 left, 0 not off)"
    )


if __name__ == "__main__":
    main()
