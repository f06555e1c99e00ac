"""`host status` while another client of the same user floods the control socket (issue 46, item 9).

    .venv/bin/python benchmarks/control_flood.py [--connections 300] [--byte-seconds 1] [--asks 20]

A real host in a fresh home; the flood opens `--connections` connections, each sending a frame
one byte every `--byte-seconds` (a slow-loris client, reconnecting whenever the host closes one).
Then `host.status` is asked `--asks` times, one after another, each on a fresh connection as the
CLI does: printed are the latency p50/p99/max and how many timed out (10 s, the CLI's default),
beside the same figure with no flood. Target: none timed out, p99 well under the CLI's timeout.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wardian_core.control import client, endpoint
from wardian_core.errors import WardianError
from wardian_host.testing.hermetic import clean_environment
from wardian_host.testing.reaping import reap_home

WARDIAN = str(Path(sys.executable).parent / "wardian")
FRAME = b'{"v": 2, "id": 1, "kind": "host.status", "params": {}, "pad": "' + b"x" * 100_000


def _ask(home: Path) -> float | None:
    """Seconds `host.status` took on a fresh connection; None when it timed out."""
    started = time.perf_counter()
    try:
        client.request(home, "host.status", timeout=10)
    except WardianError as error:
        if error.code in ("control_endpoint_timeout", "host_busy"):
            return None
        raise
    return time.perf_counter() - started


async def _trickle(path: str, byte_seconds: float, opened: list[int]) -> None:
    while True:
        try:
            _, writer = await asyncio.open_unix_connection(path)
        except OSError:
            await asyncio.sleep(byte_seconds)
            continue
        opened[0] += 1
        try:
            for byte in FRAME:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(byte_seconds)
        except ConnectionError:
            pass  # closed by the host: its frame's deadline, or room for another connection
        finally:
            writer.close()


async def _asks(home: Path, count: int) -> list[float | None]:
    return [await asyncio.to_thread(_ask, home) for _ in range(count)]


def _summary(label: str, latencies: list[float | None]) -> str:
    answered = sorted(seconds * 1000 for seconds in latencies if seconds is not None)
    timed_out = len(latencies) - len(answered)
    if not answered:
        return f"{label}: all {timed_out} timed out"
    p99 = answered[min(len(answered) - 1, int(len(answered) * 0.99))]
    return (
        f"{label}: p50 {statistics.median(answered):.1f} ms, p99 {p99:.1f} ms, max {answered[-1]:.1f} ms, "
        f"{timed_out} of {len(latencies)} timed out"
    )


async def _flooded(home: Path, args: argparse.Namespace) -> tuple[list[float | None], int]:
    path = os.fspath(endpoint.socket_path(home))
    opened = [0]
    flood = [asyncio.ensure_future(_trickle(path, args.byte_seconds, opened)) for _ in range(args.connections)]
    await asyncio.sleep(args.settle)  # every flooding connection open and part-way through its frame
    try:
        return await _asks(home, args.asks), opened[0]
    finally:
        for task in flood:
            task.cancel()
        await asyncio.gather(*flood, return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--byte-seconds", type=float, default=1.0)
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds of flood before the first ask")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="control-flood-") as scratch:
        root = Path(scratch)
        home, wardian_home = root / "home", root / "wardian-home"
        home.mkdir()
        wardian_home.mkdir()
        os.environ.update(clean_environment(dict(os.environ), home, wardian_home))
        subprocess.run([WARDIAN, "host", "start"], check=True, capture_output=True, timeout=120)
        try:
            quiet = asyncio.run(_asks(wardian_home, args.asks))
            flooded, opened = asyncio.run(_flooded(wardian_home, args))
        finally:
            reap_home(wardian_home)
    print(_summary("host.status, no flood", quiet))
    print(
        _summary(f"host.status, {args.connections} connections sending a byte every {args.byte_seconds:g} s", flooded)
        + f" ({opened} flood connections opened)"
    )


if __name__ == "__main__":
    main()
