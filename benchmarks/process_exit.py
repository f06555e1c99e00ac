"""When a process exited, as the kernel tells it: `Popen.wait(timeout=...)` polls with sleeps of
up to 50 ms, which a latency figure would count."""

import os
import select
import subprocess
import time
from collections.abc import Callable


def exited_at(process: "subprocess.Popen[bytes]", timeout: float, clock: Callable[[], float] = time.monotonic) -> float:
    """When (by `clock`) `process` exited: the moment a pidfd of it turns readable."""
    pidfd = os.pidfd_open(process.pid)
    try:
        if not select.select([pidfd], [], [], timeout)[0]:
            raise SystemExit(f"{process.args!r} did not exit within {timeout} s")
        at = clock()
    finally:
        os.close(pidfd)
    process.wait()
    return at
