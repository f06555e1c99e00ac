"""Python loads this at start-up when the directory is on PYTHONPATH. While WARDIAN_TEST_HOLD_EXIT
names a FIFO, a process that leaves through the interpreter's teardown (the host; the `wardian`
CLI leaves with os._exit, so never) is held at exit until something opens the FIFO for writing:
a host whose lock is already let go but whose process still runs."""

import atexit
import os

_FIFO = os.environ.get("WARDIAN_TEST_HOLD_EXIT")


def _held() -> None:
    if _FIFO:
        with open(_FIFO, encoding="utf-8") as fifo:  # blocks until a writer comes
            fifo.read()


atexit.register(_held)
