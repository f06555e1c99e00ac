"""What recording costs on the output path: an agent's output rate through the terminal server
with its recording on and off, beside each other, each run --rounds times (3) alternately, with
the load average at the end (the machine is shared).

    .venv/bin/python benchmarks/recording.py [--flood-mb 200] [--lines 200000] [--rounds 3]

(a) a flood: `head -c M MB /dev/zero`, read in batches of up to 64 KiB (one record each);
(b) chatty output: N short lines, each written and flushed on its own (the most records per byte);
each as MB/s (and records/s) reaching a `ServerPtys` client, as the host holds it, plus the size
the recording took on disk. Target: recording on >= 0.8x off.
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from wardian_core import paths
from wardian_core import recording_format as fmt
from wardian_host.terminal.server_client import ServerPtys

CHATTY = (
    "import sys\nfor i in range({n}):\n    sys.stdout.write(f'line {{i}} of some agent output\\n'); sys.stdout.flush()"
)


async def _rate(home: Path, argv: list[str], recording: fmt.Target | None) -> tuple[float, int]:
    """(MB/s reaching the client, bytes received)."""
    paths.ensure_home(home)
    client = await ServerPtys.connect(home)  # starts the server process, as a host does
    received = 0
    done = asyncio.Event()

    def on_output(data: bytes) -> None:
        nonlocal received
        received += len(data)

    started = time.perf_counter()
    size = (24, 80)
    await client.open("bench", argv, dict(os.environ), Path.cwd(), size, on_output, lambda _: done.set(), 0, recording)
    await done.wait()
    elapsed = time.perf_counter() - started
    client.shutdown()
    await client.close()
    return received / 1024 / 1024 / elapsed, received


def _run(argv: list[str], record: bool) -> tuple[float, int]:
    """(MB/s, recording bytes on disk)."""
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        target = fmt.Target(home / "rec", 4 * 1024 * 1024 * 1024) if record else None
        rate, _ = asyncio.run(_rate(home, argv, target))
        kept = sum(segment.stat().st_size for segment in fmt.segments(home / "rec"))
    return rate, kept


def figure(label: str, argv: list[str], rounds: int) -> None:
    on, off, disk = [], [], 0
    for _ in range(rounds):
        off.append(_run(argv, False)[0])
        rate, disk = _run(argv, True)
        on.append(rate)
    best_on, best_off = max(on), max(off)
    ratio = best_on / best_off
    verdict = "" if ratio >= 0.8 else "  UNDER TARGET"
    print(
        f"{label}: recording on {best_on:.1f} MB/s, off {best_off:.1f} MB/s (best of {rounds}: "
        f"on {', '.join(f'{r:.1f}' for r in on)}; off {', '.join(f'{r:.1f}' for r in off)}), "
        f"ratio {ratio:.2f} (target >= 0.8){verdict}; recording {disk / 1024 / 1024:.1f} MB on disk; "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood-mb", type=int, default=200)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    flood = ["head", "-c", str(args.flood_mb * 1024 * 1024), "/dev/zero"]
    figure(f"(a) {args.flood_mb} MB flood", flood, args.rounds)
    chatty = [sys.executable, "-c", CHATTY.format(n=args.lines)]
    figure(f"(b) {args.lines} lines flushed one by one", chatty, args.rounds)


if __name__ == "__main__":
    main()
