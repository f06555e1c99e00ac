"""What a busy agent's bytes cost the host: its TUI parser, and a look at its screen.

    .venv/bin/python benchmarks/parser_feed.py

For the recorded Claude and Codex TUIs that `benchmarks/host.py` (e) replays: the provider's
PTY parser fed in 5 KB reads (starting, and ready: the steady state), beside decoding and
stripping the same bytes (what every byte cost before the markers were found in the raw
stream); the screen model's replay rate (a look replays what arrived since the last one);
and how many full-screen clears the recording has (a look could start from the last one).
CPU time, so other processes on the machine do not count.
"""

import time
from collections.abc import Callable
from pathlib import Path

from wardian_claude.tui import ClaudeScreen
from wardian_codex.tui import CodexScreen
from wardian_core.parsing.escapes import TerminalText, squeeze
from wardian_core.parsing.screen import ScreenModel
from wardian_core.provider_models import PTY_SOURCE

HERE = Path(__file__).resolve().parent
READ_BYTES = 5000
# 50 agents at 100 KB/s: what (e) asks of the host, per second.
BUSY_BYTES_PER_SECOND = 5_000_000
CLEARS = (b"\x1b[2J", b"\x1b[3J", b"\x1bc")
RECORDINGS = {
    "claude": (ClaudeScreen, HERE.parent / "providers/wardian-claude/tests/fixtures/recordings/claude-tui.raw"),
    "codex": (CodexScreen, HERE.parent / "providers/wardian-codex/tests/fixtures/codex-tui-resume-thread.raw"),
}


def rate(work: list[bytes], feed: Callable[[bytes], object]) -> float:
    """MB/s of CPU time for `feed` over every piece of `work`, after a warm-up."""
    for piece in work[:10]:
        feed(piece)
    started = time.process_time()
    for piece in work:
        feed(piece)
    return sum(map(len, work)) / (time.process_time() - started) / 1e6


def stripper() -> Callable[[bytes], str]:
    """The squeezed text of a stream, read by read (the old marker watch's work)."""
    text = TerminalText()
    return lambda piece: squeeze(text.feed(piece))


def main() -> None:
    steady: dict[str, float] = {}
    print(f"{'recording':<9} {'state':<9} {'parser':>11} {'decode+strip':>13} {'screen model':>13}  clears")
    for name, (parser_class, recording) in RECORDINGS.items():
        data = recording.read_bytes()
        stream = data * (2_000_000 // len(data))
        work = [stream[start : start + READ_BYTES] for start in range(0, len(stream), READ_BYTES)]
        stripped = rate(work, stripper())
        screen = ScreenModel()
        replayed = rate(work[:40], screen.feed)
        clears = sum(data.count(clear) for clear in CLEARS)
        for ready in (False, True):
            tui = parser_class(PTY_SOURCE)  # no context: the PTY parser's feed never reads it
            tui.feed(data)
            tui.ready = ready
            parsed = rate(work, tui.feed)
            state = "ready" if ready else "starting"
            steady[name] = parsed
            print(f"{name:<9} {state:<9} {parsed:>6.1f} MB/s {stripped:>8.1f} MB/s {replayed:>8.2f} MB/s  {clears}")
    share = sum(BUSY_BYTES_PER_SECOND / len(steady) / 1e6 / parsed for parsed in steady.values())
    print(f"(e)'s {BUSY_BYTES_PER_SECOND / 1e6:.0f} MB/s, half of each, ready: {share * 100:.1f} % of a core")


if __name__ == "__main__":
    main()
