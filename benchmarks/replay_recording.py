"""Writes a recorded provider TUI to its terminal, over and over, at a steady rate.

    replay_recording.py RECORDING BYTES_PER_SECOND GO_FILE [ignored provider arguments]

Stands in for a provider's CLI in `benchmarks/host.py`: the host runs it as that
provider's executable, so the provider's real parser reads real output. It writes only
while GO_FILE exists (agents that are up but quiet otherwise), and never reads stdin.
"""

import os
import sys
import time
from pathlib import Path

TICK_SECONDS = 0.05


def main() -> None:
    recording, rate, go_file = Path(sys.argv[1]).read_bytes(), int(sys.argv[2]), sys.argv[3]
    per_tick, offset = max(1, int(rate * TICK_SECONDS)), 0
    # Enough copies end to end that a tick's piece starting anywhere in the first is whole: a
    # recording shorter than a tick wrote only its tail before, about half the rate asked.
    looped = recording * (per_tick // len(recording) + 2)
    next_tick = time.monotonic()
    while True:
        next_tick += TICK_SECONDS
        if os.path.exists(go_file):
            piece = looped[offset : offset + per_tick]
            offset = (offset + per_tick) % len(recording)
            os.write(1, piece)
        time.sleep(max(0.0, next_tick - time.monotonic()))


if __name__ == "__main__":
    main()
