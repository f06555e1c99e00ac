"""Python loads this at start-up when the directory is on PYTHONPATH. While WARDIAN_TEST_HOLD_EXIT
names a FIFO, a process that leaves through the interpreter's teardown (the host; the `wardian`
CLI leaves with os._exit, so never) is held at exit until something opens the FIFO for writing:
a host whose lock is already let go but whose process still runs.

Only the host is held: the terminal server it starts inherits the variable too, and one held
after the test's one writer came and went would wait for ever, and with it a host that waits
for its terminal server to end before leaving."""

import atexit
import os
import sys

_FIFO = os.environ.get("WARDIAN_TEST_HOLD_EXIT")


def _held() -> None:
    # At exit `-m wardian_host.daemon` has made argv[0] the module's path.
    if _FIFO and "wardian_host/daemon" in sys.argv[0].replace(os.sep, "/"):
        with open(_FIFO, encoding="utf-8") as fifo:  # blocks until a writer comes
            fifo.read()


atexit.register(_held)
