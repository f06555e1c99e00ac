"""Reading what a client in a test's pty shows: each read awaited with select, never blind."""

import select
import time

from ptyprocess import PtyProcess


def read_until(terminal: PtyProcess, needle: bytes, limit: float = 20.0) -> bytes:
    """What the terminal showed up to and including `needle` (or to its end); fails after `limit`."""
    seen, deadline = b"", time.monotonic() + limit
    while needle not in seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"{needle!r} not seen; got {seen[-500:]!r}")
        if select.select([terminal.fd], [], [], remaining)[0]:
            try:
                seen += terminal.read(65536)
            except EOFError:
                break
    return seen
