"""The host, run with a loop-lag probe that names what held its loop.

    loop_probe.py --home HOME --report STALLS.jsonl [--ready-fd N] [--profile STATS]

`benchmarks/host.py` starts its host through this instead of `wardian host start`. A
heartbeat on the host's loop beats every `BEAT_SECONDS`; a watchdog thread that sees it
late by more than `--late-ms` samples the main thread's stack until the loop beats again,
and appends the stall to the report: how long, the callback the loop was running (the
frame under asyncio's `Handle._run`), the innermost frames seen most often, and the time
the garbage collector took meanwhile. `--profile` also runs the host under cProfile and
writes its stats at exit (it slows the host: a profile is not a latency run).

SIGUSR1 pauses the probe (no beat, no watchdog: what the host spends while idle is then the
host's own) and SIGUSR2 resumes it; each change is written to `probe_state_file` once made.

Walking another thread's frames (`f_back`) can crash CPython 3.11 (python/cpython#99110 and
its follow-ups; sentry-python's sampling profiler met it on 3.11.5): one probed (e) run of
fifty agents ended so. faulthandler writes every thread's stack beside the report when it does.
"""

import argparse
import asyncio
import cProfile
import faulthandler
import gc
import itertools
import json
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from wardian_host.daemon import process

# The probe costs ~2 % of a core so (e)'s host CPU is the host's (2 ms beats watched every 1 ms: 7.6 %).
BEAT_SECONDS = 0.01
WATCH_SECONDS = 0.01
SAMPLE_SECONDS = 0.001  # while the loop is late
INNERMOST_FRAMES = 4
TOP_STACKS = 3


def _where(frame: FrameType) -> str:
    return f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}:{frame.f_lineno}"


def stack_summary(frame: FrameType | None) -> tuple[str, str]:
    """The callback the loop is running (the frame asyncio's `Handle._run` called), and the
    innermost frames below it."""
    frames: list[FrameType] = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    frames.reverse()  # outermost first
    callback = "(not in a callback)"
    for outer, inner in itertools.pairwise(frames):
        if outer.f_code.co_name == "_run" and Path(outer.f_code.co_filename).name == "events.py":
            callback = _where(inner)
    innermost = " < ".join(_where(f) for f in reversed(frames[-INNERMOST_FRAMES:]))
    return callback, innermost


class GcClock:
    """The collector's pauses, as (start, seconds, generation); each full collection is also
    written to the report with its CPU time (its wall time counts a machine busy elsewhere)."""

    def __init__(self, report: Path) -> None:
        self.pauses: list[tuple[float, float, int]] = []
        self._report = report
        self._started = (0.0, 0.0)
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = (time.perf_counter(), time.thread_time())
            return
        (wall, cpu), generation = self._started, info["generation"]
        seconds = time.perf_counter() - wall
        self.pauses.append((wall, seconds, generation))
        del self.pauses[:-1000]
        if generation == 2:
            pause = {"gc_at": time.time() - seconds, "ms": seconds * 1000, "cpu_ms": (time.thread_time() - cpu) * 1000}
            with self._report.open("a") as report:
                report.write(json.dumps(pause) + "\n")

    def seconds_between(self, start: float, end: float) -> float:
        return sum(seconds for at, seconds, _ in list(self.pauses) if start <= at <= end)


def probe_thread_file(report: Path) -> Path:
    """Where the probe writes its watchdog thread's id (a Linux thread id)."""
    return report.with_suffix(".probe-tid")


def probe_state_file(report: Path) -> Path:
    """Where the probe says whether it is `watching` or `paused` (SIGUSR1, SIGUSR2)."""
    return report.with_suffix(".probe-state")


def schedstat(tid: int | None) -> tuple[float, float]:
    """Seconds thread `tid` ran on a CPU, and waited for one in the run queue (Linux)."""
    try:
        ran, waited, _ = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(ran) / 1e9, int(waited) / 1e9


class LoopProbe:
    def __init__(self, loop: asyncio.AbstractEventLoop, report: Path, late_seconds: float) -> None:
        self._loop = loop
        self._report = report
        self._late = late_seconds
        self._beat = time.perf_counter()
        self._main = threading.main_thread().ident
        self._main_tid = threading.main_thread().native_id
        self._gc = GcClock(report)
        self._stop = threading.Event()
        self._watching = threading.Event()
        self._next_beat: asyncio.TimerHandle | None = None

    def start(self) -> None:
        watchdog = threading.Thread(target=self._watch, name="loop-probe", daemon=True)
        watchdog.start()
        # The benchmark's instrument, not the host: its CPU is taken out of the host's figures.
        probe_thread_file(self._report).write_text(str(watchdog.native_id))
        self._loop.add_signal_handler(signal.SIGUSR1, self.pause)
        self._loop.add_signal_handler(signal.SIGUSR2, self.resume)
        self.resume()

    def pause(self) -> None:
        self._watching.clear()
        if self._next_beat is not None:
            self._next_beat.cancel()
            self._next_beat = None
        probe_state_file(self._report).write_text("paused")

    def resume(self) -> None:
        if not self._watching.is_set():
            self._beat = time.perf_counter()
            self._watching.set()
            self._on_beat()
        probe_state_file(self._report).write_text("watching")

    def _on_beat(self) -> None:
        self._beat = time.perf_counter()
        self._next_beat = self._loop.call_later(BEAT_SECONDS, self._on_beat)

    def _watch(self) -> None:
        while not self._stop.is_set():
            self._watching.wait()
            time.sleep(WATCH_SECONDS)
            last = self._beat
            if self._watching.is_set() and time.perf_counter() - last > BEAT_SECONDS + self._late:
                self._follow_stall(last)

    def _follow_stall(self, last_beat: float) -> None:
        callbacks: Counter[str] = Counter()
        stacks: Counter[str] = Counter()
        others: Counter[str] = Counter()
        mine = threading.get_ident()
        ran, waited = schedstat(self._main_tid)
        while self._beat == last_beat and self._watching.is_set() and not self._stop.is_set():
            frames = sys._current_frames()
            callback, innermost = stack_summary(frames.get(self._main or 0))
            callbacks[callback] += 1
            stacks[innermost] += 1
            # Another thread holding the GIL holds the loop too: where the others were.
            others.update(stack_summary(f)[1] for i, f in frames.items() if i not in (mine, self._main))
            time.sleep(SAMPLE_SECONDS)
        if not self._watching.is_set():
            return  # paused by the benchmark, on the loop: no stall
        if not callbacks:
            callbacks["(over before a sample)"] += 1
            stacks["(over before a sample)"] += 1
        held = self._beat - last_beat - BEAT_SECONDS
        ran_after, waited_after = schedstat(self._main_tid)
        stall = {
            "at": time.time() - (time.perf_counter() - last_beat),
            "ms": round(held * 1000, 1),
            # The loop's thread on a CPU, and waiting for one (a machine busy elsewhere).
            "cpu_ms": round((ran_after - ran) * 1000, 1),
            "runqueue_ms": round((waited_after - waited) * 1000, 1),
            "gc_ms": round(self._gc.seconds_between(last_beat, self._beat) * 1000, 1),
            "callbacks": callbacks.most_common(TOP_STACKS),
            "stacks": stacks.most_common(TOP_STACKS),
            "other_threads": others.most_common(TOP_STACKS),
        }
        with self._report.open("a") as report:
            report.write(json.dumps(stall) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--report", required=True, type=Path)
    parser.add_argument("--ready-fd", type=int)
    parser.add_argument("--late-ms", type=float, default=20.0)
    parser.add_argument("--profile", type=Path)
    args = parser.parse_args()
    # A crash of the host (a fault in the interpreter) leaves every thread's stack beside the report.
    crashes = args.report.with_suffix(".crash.txt").open("a")
    faulthandler.enable(crashes, all_threads=True)
    run_host = process._run_host

    async def probed(home: Path, on_ready: Callable[[], None]) -> None:
        LoopProbe(asyncio.get_running_loop(), args.report, args.late_ms / 1000).start()
        await run_host(home, on_ready)

    process._run_host = probed
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    try:
        code = process.serve(args.home, False, args.ready_fd)
    finally:
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
    sys.exit(code)


if __name__ == "__main__":
    main()
