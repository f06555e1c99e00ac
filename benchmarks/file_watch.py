"""File following: inotify and the polling that stands in for it, each figure beside a floor measured in the same run.

    .venv/bin/python benchmarks/file_watch.py [--appends 200] [--max-gap 0.5] [--new-files 40]
                                              [--idle-files 100] [--idle-seconds 10] [--log-mb 64]
                                              [--sections abcd]

(a) append -> line: one file followed twice, by a FileTail on inotify and one polling (the
    portable backend's, as on macOS); a writer thread appends N lines at random gaps
    (uniform up to --max-gap, so polling is caught at every point of its back-off).
    Median, p95 and max of each, beside a bare event-loop wake-up (a pipe read by the loop).
    Targets: inotify p95 <= 20 ms; polling p95 <= the file ceiling + 50 ms.
(b) new file -> reported: a folder tree like a year of Codex sessions (YYYY/MM/DD, ~380
    folders) watched by a DirectoryWatch on each; new files in old and in new day folders.
    Target: polling p95 <= the folder ceiling + 100 ms (inotify's figure is its floor).
(c) CPU of polling while nothing is written (CPU seconds per wall second), beside the same
    loop following nothing: --idle-files files, and the tree of (b). Target <= 1% of a core each.
(d) a long hook log resumed: --log-mb of Claude Code hook lines (turns of five file reads, each
    PostToolUse holding the file), all read before a host stopped, replayed by the next host's
    FileTail through Claude's hook parser. The longest the loop was held meanwhile (a timer
    every millisecond, late by how much) and the replay's wall time, beside the same replay
    read whole in one turn (the floor). Targets: longest hold <= 50 ms; time <= 1.25x the floor.
    Then the same log read live by a host whose parser marks its rests (`ParseResult.at_rest`):
    how much of it the next host replays. Target: at most one turn's lines.
Linux only for the inotify rows; elsewhere they are skipped and polling is measured alone.
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import TypeVar

from host import line, median_ms, percentile_ms

from wardian_claude import parser as claude_parser
from wardian_core.provider_models import OutputSource
from wardian_core.pty_backend import BACKEND_VARIABLE, linux_means_missing
from wardian_core.telemetry_positions import FilePosition
from wardian_host.output import file_tail
from wardian_host.output.directory_watch import DirectoryWatch
from wardian_host.output.file_tail import FileTail
from wardian_host.output.polling import FILE_CEILING_SECONDS, FOLDER_CEILING_SECONDS
from wardian_host.testing.contexts import spawn_context

AN_HOUR_AGO_NS = time.time_ns() - 3600 * 10**9
Follower = TypeVar("Follower", FileTail, DirectoryWatch)


def backends() -> list[str]:
    return ["ptyprocess"] if linux_means_missing() else ["linux", "ptyprocess"]


def started(backend: str, follower: Follower) -> Follower:
    """`follower` started under `backend` (the backend is read when a follower opens inotify)."""
    os.environ[BACKEND_VARIABLE] = backend
    follower.start()
    polling = follower._poll_watch is not None
    if polling != (backend == "ptyprocess"):
        raise SystemExit(f"{backend}: expected {'polling' if backend == 'ptyprocess' else 'inotify'}")
    return follower


def latency_row(label: str, samples: list[float], floor_label: str, floor: list[float], verdict: str) -> None:
    print(f"  {label:<28} {summary(samples):<44} {verdict}")
    print(f"    floor: {floor_label:<19} {summary(floor)}")


def summary(samples: list[float]) -> str:
    return f"p50 {median_ms(samples):.1f} / p95 {percentile_ms(samples, 0.95):.1f} / max {max(samples) * 1000:.1f} ms"


def verdict(samples: list[float], target_ms: float) -> str:
    p95 = percentile_ms(samples, 0.95)
    return f"ok (p95 <= {target_ms:.0f} ms)" if p95 <= target_ms else f"OVER TARGET (p95 > {target_ms:.0f} ms)"


def write_at_random_gaps(count: int, max_gap: float, write: Callable[[int], None]) -> threading.Thread:
    def run() -> None:
        for index in range(count):
            time.sleep(random.uniform(0, max_gap))  # the gaps are the workload
            write(index)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def loop_wake_up(count: int) -> list[float]:
    """The floor: a write to a pipe until the loop's reader runs, from another thread."""
    loop = asyncio.get_running_loop()
    read_end, write_end = os.pipe()
    latencies: list[float] = []
    done = asyncio.Event()

    def on_readable() -> None:
        latencies.extend(time.perf_counter() - float(stamp) for stamp in os.read(read_end, 65536).split())
        if len(latencies) >= count:
            done.set()

    loop.add_reader(read_end, on_readable)
    write_at_random_gaps(count, 0.005, lambda index: os.write(write_end, f"{time.perf_counter()!r}\n".encode()))
    await asyncio.wait_for(done.wait(), 60)
    loop.remove_reader(read_end)
    os.close(read_end)
    os.close(write_end)
    return latencies


async def append_latency(folder: Path, appends: int, max_gap: float) -> dict[str, list[float]]:
    loop = asyncio.get_running_loop()
    path = folder / "hooks.jsonl"
    path.touch()
    latencies: dict[str, list[float]] = {backend: [] for backend in backends()}
    done = asyncio.Event()

    def on_line(backend: str) -> Callable[[bytes], None]:
        def record(line: bytes) -> None:
            latencies[backend].append(time.perf_counter() - float(line))
            if all(len(samples) >= appends for samples in latencies.values()):
                done.set()

        return record

    tails = [started(backend, FileTail(loop, path, on_line(backend))) for backend in latencies]

    def append(index: int) -> None:
        with path.open("ab") as handle:
            handle.write(f"{time.perf_counter()!r}\n".encode())

    write_at_random_gaps(appends, max_gap, append)
    await asyncio.wait_for(done.wait(), appends * max_gap + 60)
    for tail in tails:
        tail.close()
    return latencies


def codex_tree(root: Path, year: int = 2024) -> int:
    """root/YYYY/MM/DD for every day of `year`, three sessions in each, all an hour old; the folder count."""
    day, folders = date(year, 1, 1), {root}
    while day.year == year:
        folder = root / f"{day:%Y/%m/%d}"
        folder.mkdir(parents=True)
        for index in range(3):
            (folder / f"rollout-{index}.jsonl").write_text("{}\n")
        folders.update([folder, folder.parent, folder.parent.parent])
        day += timedelta(days=1)
    for folder in folders:
        os.utime(folder, ns=(AN_HOUR_AGO_NS, AN_HOUR_AGO_NS))
    return len(folders)


async def new_file_latency(root: Path, new_files: int, max_gap: float) -> dict[str, list[float]]:
    loop = asyncio.get_running_loop()
    written: dict[bytes, float] = {}
    latencies: dict[str, list[float]] = {backend: [] for backend in backends()}
    done = asyncio.Event()

    def on_line(backend: str) -> Callable[[bytes], None]:
        def record(relative: bytes) -> None:
            latencies[backend].append(time.perf_counter() - written[relative])
            if all(len(samples) >= new_files for samples in latencies.values()):
                done.set()

        return record

    watches = [
        started(backend, DirectoryWatch(loop, root, "rollout-*.jsonl", on_line(backend))) for backend in latencies
    ]

    def create(index: int) -> None:
        # Every fourth in a day folder of its own (its month folder changes), the rest in an old day's.
        day = date(2025, 1, 1) + timedelta(days=index) if index % 4 == 0 else date(2024, 1, 1) + timedelta(index)
        folder = root / f"{day:%Y/%m/%d}"
        folder.mkdir(parents=True, exist_ok=True)
        relative = f"{day:%Y/%m/%d}/rollout-new-{index}.jsonl"
        written[relative.encode()] = time.perf_counter()
        (root / relative).write_text("{}\n")

    write_at_random_gaps(new_files, max_gap, create)
    await asyncio.wait_for(done.wait(), new_files * max_gap + 60)
    for watch in watches:
        watch.close()
    return latencies


async def idle_cpu(seconds: float, follow: Callable[[], list[FileTail | DirectoryWatch]]) -> float:
    """CPU seconds per wall second of this process while `follow()`'s followers wait for nothing."""
    followers = follow()
    await asyncio.sleep(2 * FOLDER_CEILING_SECONDS)  # past the back-off, to the steady state
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)  # the measurement: the loop runs only the polling meanwhile
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    for follower in followers:
        follower.close()
    return cpu / wall


def polling_row(samples: dict[str, list[float]], floor: list[float], target_ms: float) -> None:
    """Polling's row, beside inotify's figures where this system has inotify, else the loop's."""
    latency_row(
        "polling (portable backend)",
        samples["ptyprocess"],
        "inotify" if "linux" in samples else "loop wake-up",
        samples.get("linux", floor),
        verdict(samples["ptyprocess"], target_ms),
    )


HOLD_TARGET_MS = 50.0  # another agent's status latency budget (benchmarks/host.py (c))
REPLAY_TARGET = 1.25


def claude_hook_log(path: Path, megabytes: float) -> tuple[FilePosition, int]:
    """Turns of a busy Claude agent's hook log, to `megabytes`: the position of a host that read
    it all from its first line, and the bytes of one turn."""
    session = "22222222-2222-4333-8444-555555555555"
    content = "result = compute(alpha, beta)  # a line of the file read\n" * 70  # about 4 KB
    turn = [{"hook_event_name": "UserPromptSubmit", "prompt": "go on with the task"}]
    for index in range(5):
        tool = {"tool_name": "Read", "tool_input": {"file_path": f"/work/src/module{index}.py"}}
        response = {"tool_response": {"type": "text", "file": {"filePath": f"module{index}.py", "content": content}}}
        turn += [{"hook_event_name": "PreToolUse", **tool}, {"hook_event_name": "PostToolUse", **tool, **response}]
    turn.append({"hook_event_name": "Stop", "last_assistant_message": "Done: " + "the change is made. " * 20})
    block = b"".join(json.dumps({"session_id": session, **record}).encode() + b"\n" for record in turn)
    path.write_bytes(block * max(1, round(megabytes * 1e6 / len(block))))
    status = path.stat()
    return FilePosition(start=0, read=status.st_size, device=status.st_dev, inode=status.st_ino), len(block)


async def read_live(path: Path, scratch: Path) -> FilePosition:
    """The position a host leaves after reading `path` as it was written, its parser marking rests."""
    loop = asyncio.get_running_loop()
    hooks = claude_parser.parser_for(spawn_context(scratch, "claude"), OutputSource(name="claude-hooks", path=path))
    # One stat of a local file before the reading starts: nothing for the loop to wait on.
    size, done, read = path.stat().st_size, asyncio.Event(), 0  # noqa: ASYNC240

    def parsed(line: bytes) -> bool:
        nonlocal read
        read += len(line) + 1
        if read >= size:
            done.set()
        return hooks.feed(line).rests()

    tail = FileTail(loop, path, parsed)
    tail.start()
    await done.wait()
    tail.close()
    return tail.position()


async def replay_hold(path: Path, resume: FilePosition, scratch: Path) -> tuple[float, float]:
    """(longest loop hold in ms, wall seconds) while a new FileTail replays `path` through Claude's parser."""
    loop = asyncio.get_running_loop()
    source = OutputSource(name="claude-hooks", path=path)
    hooks = claude_parser.parser_for(spawn_context(scratch, "claude"), source)
    done = asyncio.Event()
    replayed_bytes, hold, ticking = 0, 0.0, True

    def replayed(line: bytes) -> None:
        nonlocal replayed_bytes
        hooks.feed(line)
        replayed_bytes += len(line) + 1
        if replayed_bytes >= resume.read:
            done.set()

    def tick(due: float) -> None:
        nonlocal hold
        hold = max(hold, loop.time() - due)
        if ticking:
            next_due = loop.time() + 0.001
            loop.call_at(next_due, tick, next_due)

    tick(loop.time())
    await asyncio.sleep(0.01)  # the ticker running before the replay begins
    began = time.perf_counter()
    tail = FileTail(loop, path, lambda line: None, resume=resume, on_replay=replayed)
    tail.start()
    await done.wait()
    took = time.perf_counter() - began
    await asyncio.sleep(0.005)  # the tick that was due during the last hold has run
    ticking = False
    tail.close()
    return hold * 1000, took


async def resumed_log_row(folder: Path, megabytes: float, rounds: int = 3) -> None:
    """Chunked (as the host reads) and read whole, in turns: the longest hold and the median time of each."""
    log = folder / "hooks.jsonl"
    resume, turn_bytes = claude_hook_log(log, megabytes)
    print(f"(d) a {resume.read / 1e6:.0f} MB Claude hook log resumed by a new host, replayed through its parser")
    chunked: list[tuple[float, float]] = []
    whole: list[tuple[float, float]] = []
    default_chunk = file_tail.READ_CHUNK_BYTES
    for _ in range(rounds):
        chunked.append(await replay_hold(log, resume, folder))
        file_tail.READ_CHUNK_BYTES = resume.read  # one read of the whole file: the floor
        try:
            whole.append(await replay_hold(log, resume, folder))
        finally:
            file_tail.READ_CHUNK_BYTES = default_chunk
    hold, hold_whole = max(h for h, _ in chunked), max(h for h, _ in whole)
    took, took_whole = statistics.median(t for _, t in chunked), statistics.median(t for _, t in whole)
    line(
        "longest loop hold",
        f"{hold:.1f} ms",
        f"{hold_whole:.0f} ms read whole",
        f"ok (<= {HOLD_TARGET_MS:g} ms)" if hold <= HOLD_TARGET_MS else "OVER TARGET",
    )
    line(
        f"replay time (median of {rounds})",
        f"{took:.2f} s",
        f"{took_whole:.2f} s read whole ({took / took_whole:.2f}x)",
        f"ok (<= {REPLAY_TARGET}x)" if took <= REPLAY_TARGET * took_whole else "OVER TARGET",
    )
    left = await read_live(log, folder)
    replayed = left.read - left.start
    line(
        "replayed after a host that marked rests",
        f"{replayed / 1e3:.1f} KB",
        f"{resume.read / 1e6:.0f} MB from the first line",
        f"ok (<= one turn, {turn_bytes / 1e3:.0f} KB)" if replayed <= turn_bytes else "OVER TARGET",
    )


async def append_rows(folder: Path, args: argparse.Namespace, floor: list[float]) -> None:
    print(f"(a) append -> line, {args.appends} appends at random gaps up to {args.max_gap} s")
    appended = await append_latency(folder, args.appends, args.max_gap)
    if "linux" in appended:
        latency_row("inotify", appended["linux"], "loop wake-up", floor, verdict(appended["linux"], 20))
    polling_row(appended, floor, FILE_CEILING_SECONDS * 1000 + 50)


async def new_file_rows(tree: Path, folders: int, args: argparse.Namespace, floor: list[float]) -> None:
    print(f"(b) new file -> reported, {args.new_files} files in a tree of {folders} folders")
    created = await new_file_latency(tree, args.new_files, 2 * FOLDER_CEILING_SECONDS)
    if "linux" in created:
        latency_row("inotify", created["linux"], "loop wake-up", floor, "(no target: the floor of polling)")
    polling_row(created, floor, FOLDER_CEILING_SECONDS * 1000 + 100)


async def idle_rows(folder: Path, tree: Path, folders: int, args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    print(f"(c) CPU while nothing is written, over {args.idle_seconds:.0f} s")
    nothing = await idle_cpu(args.idle_seconds, list)
    files = [folder / f"idle-{index}.jsonl" for index in range(args.idle_files)]
    for path in files:
        path.write_text("{}\n")

    def tails() -> list[FileTail | DirectoryWatch]:
        return [started("ptyprocess", FileTail(loop, path, lambda line: None)) for path in files]

    def tree_watch() -> list[FileTail | DirectoryWatch]:
        return [started("ptyprocess", DirectoryWatch(loop, tree, "rollout-*.jsonl", lambda line: None))]

    for label, follow in (
        (f"{args.idle_files} idle files polled", tails),
        (f"a tree of {folders} folders polled", tree_watch),
    ):
        share = await idle_cpu(args.idle_seconds, follow)
        line(
            label,
            f"{share * 100:.2f} % core",
            f"{nothing * 100:.2f} % following none",
            "ok (<= 1%)" if share <= 0.01 else "OVER TARGET",
        )


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        floor = await loop_wake_up(args.appends)
        tree = folder / "sessions"
        folders = codex_tree(tree)
        if "a" in args.sections:
            await append_rows(folder, args, floor)
        if "b" in args.sections:
            await new_file_rows(tree, folders, args, floor)
        if "c" in args.sections:
            await idle_rows(folder, tree, folders, args)
        if "d" in args.sections:
            await resumed_log_row(folder, args.log_mb)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument(
        "--max-gap", type=float, default=2 * FILE_CEILING_SECONDS, help="seconds between appends, at most"
    )
    parser.add_argument("--new-files", type=int, default=40)
    parser.add_argument("--idle-files", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--sections", default="abcd", help="which of (a)-(d) to run, e.g. --sections d")
    parser.add_argument("--log-mb", type=float, default=64, help="size of (d)'s resumed hook log")
    asyncio.run(main(parser.parse_args()))
