"""Checking a large workflow file: time and memory of `wardian workflow validate`'s work.

    .venv/bin/python benchmarks/workflow_validation.py [--nodes 8000]

A chain of N shell nodes, each after the one before, with no templates, with every node
using the first one's output, and with each using its predecessor's: the file's parse and
every check (check_file), timed and its peak allocation traced, beside the floor of
json.loads on the same text. Targets for 8,000 nodes: under 1 s and 100 MB (the quadratic
check took 6.5 s and 2.1 GB). Then a `workflow list` of that file kept by its stamp.
"""

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from wardian_core.workflows.files import CheckedFiles, check_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from workflow_shapes import chained_workflow

TARGET_SECONDS = 1.0
TARGET_MB = 100.0


def measured(work: Any) -> tuple[float, float]:
    """Seconds of one run, and the peak MB of another traced (tracing slows it)."""
    started = time.perf_counter()
    work()
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak / 1e6


def main(nodes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        path = home / "chain.json"
        print(f"{nodes} chained nodes")
        for reference in (None, "first", "previous"):
            text = json.dumps(chained_workflow(nodes, reference))
            path.write_text(text)
            floor, _ = measured(lambda: json.loads(text))  # noqa: B023  # called at once
            seconds, megabytes = measured(lambda: check_file(home, path))
            verdict = "ok" if seconds <= TARGET_SECONDS and megabytes <= TARGET_MB else "OVER TARGET"
            name = reference or "no templates"
            print(
                f"  {name:<13} check {seconds:.2f} s ({seconds / floor:.0f}x json.loads), "
                f"peak {megabytes:.0f} MB  {verdict}"
            )
        (home / "workflows").mkdir()
        path.rename(home / "workflows" / "chain.json")
        catalog = CheckedFiles(home)
        started = time.perf_counter()
        catalog.summaries()
        first = time.perf_counter() - started
        again, _ = measured(catalog.summaries)
        print(f"  workflow list: first {first * 1000:.0f} ms, unchanged file again {again * 1000:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=8000)
    main(parser.parse_args().nodes)
