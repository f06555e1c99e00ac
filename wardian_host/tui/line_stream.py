"""A follower's stream read from a child process that prints `agent watch --follow`'s JSON
lines: `wardian agent watch NAME --follow` run on another machine over ssh."""

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

# How long a closed stream's process has to leave after SIGTERM before it is killed: an ssh
# client multiplexed over a master leaves within milliseconds.
CLOSE_SECONDS = 5.0

# Told how the process ended (its exit status and what it wrote on stderr) when nobody closed
# it; raises the WardianError that says why, or returns for an end that is no failure.
EndChecked = Callable[[int, str], None]


class LineStream:
    """`argv` is asked for on the stream's own thread: building it may connect (an ssh master)."""

    def __init__(self, argv: Callable[[], list[str]], end_checked: EndChecked) -> None:
        self._argv = argv
        self._end_checked = end_checked
        self._process: subprocess.Popen[str] | None = None
        self._closed = False
        self._lock = threading.Lock()  # the process is started only while the stream is open

    def items(self) -> Iterator[dict[str, Any]]:
        if self._closed:  # closed before it started: not even a master connection made for it
            return
        argv = self._argv()
        with self._lock:
            if self._closed:
                return
            # Its own session: the terminal's Ctrl-C while the dashboard steps aside for an
            # attach goes to the attach, not to every follower.
            process = self._process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        # Its pipes closed by this thread, the one reading them, however the reading ends.
        with process:
            assert process.stdout is not None and process.stderr is not None
            for line in process.stdout:
                item = _item(line)
                if item is not None:
                    yield item
            stderr = process.stderr.read()
        if not self._closed:
            self._end_checked(process.returncode, stderr)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            process = self._process
        if process is None:
            return
        process.terminate()  # a no-op once it was reaped
        try:
            process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _item(line: str) -> dict[str, Any] | None:
    """One JSON object line; anything else (a shell's greeting) is no item."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
