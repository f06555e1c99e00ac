"""Reading what a client in a test's pty shows: each read awaited with select, never blind."""

import select
import time
from collections.abc import Callable

from ptyprocess import PtyProcess


def read_while(terminal: PtyProcess, waiting: Callable[[bytes], bool], limit: float, missing: str) -> bytes:
    """Read until `waiting(seen)` is false or the terminal ends; fails after `limit`, naming `missing`."""
    seen, deadline = b"", time.monotonic() + limit
    while waiting(seen):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"{missing} not seen; got {seen[-500:]!r}")
        if select.select([terminal.fd], [], [], remaining)[0]:
            try:
                seen += terminal.read(65536)
            except EOFError:
                break
    return seen


def read_until(terminal: PtyProcess, needle: bytes, limit: float = 20.0) -> bytes:
    """What the terminal showed up to and including `needle` (or to its end); fails after `limit`."""
    return read_while(terminal, lambda seen: needle not in seen, limit, repr(needle))
