"""A waiting command that outlives its host: reconnect to the next host and go on.

A host restart (`wardian host restart`, an upgrade) or a crash closes every connection,
while the agents go on in the terminal server. A command that was waiting on one (`agent
wait`, `send --wait-until`, `agent watch --until`) waits for the next host on the same
socket, within its own time left (without one, `HOST_RETURN_SECONDS`), and asks it for the
rest of the wait: what the request is continued with comes from the stream items the old
host sent first (the status mark a fresh arrival counts from, the cursor output counts
from, that a send was delivered), so nothing that happened meanwhile is missed and nothing
is done twice. If no host comes back in time, the answer is `app_not_running`.
"""

import time
from collections.abc import Callable, Generator
from typing import Any

from wardian_core import paths
from wardian_core.control.client import ControlClient, Patience, lost_host
from wardian_core.control.protocol import default_timeout
from wardian_core.errors import WardianError
from wardian_host.answers.connection import LIFECYCLE_SECONDS, after_waiting, connect

# How long a wait with no time limit of its own waits for the next host.
HOST_RETURN_SECONDS = LIFECYCLE_SECONDS

Request = tuple[str, dict[str, Any]]
# What to ask the next host: from the items heard so far and the time left (None: no limit).
Continuation = Callable[[dict[str, Any], float | None], Request]


class Countdown:
    """The time left of a wait that began at its creation; None for a wait without a limit."""

    def __init__(self, seconds: float | None) -> None:
        self._end = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        # Never 0: the next host answers a spent wait with its own `wait_timeout`.
        return None if self._end is None else max(self._end - time.monotonic(), 0.001)


def across_restarts(
    first: Request, timeout: float | None, heard: dict[str, Any], again: Continuation, slack: float
) -> Any:
    """The answer to `first`, asked again as `again` says of the next host when the host goes away
    first. `heard` collects the stream items; `slack`: the host's own time to answer."""
    countdown = Countdown(timeout)
    kind, params = first
    # The first host is given the wait as it was told (what a refusal names); a next one, what is left.
    waiting, lost = timeout, False
    while True:
        try:
            with connect() as client:
                return _drained(client.exchange(kind, params, after_waiting(waiting, slack)), heard)
        except WardianError as error:
            # Once a host went away, none answering is the next host still to come: the socket
            # seen answering can refuse the request that follows (CI saw it once after a kill -9).
            if not (lost_host(error) or (lost and error.code == "app_not_running")):
                raise
        lost = True
        await_next_host(countdown.remaining())
        waiting = countdown.remaining()
        kind, params = again(heard, waiting)


def _drained(exchange: Generator[dict[str, Any], None, Any], heard: dict[str, Any]) -> Any:
    while True:
        try:
            heard.update(next(exchange))
        except StopIteration as done:
            return done.value


def await_next_host(seconds: float | None, then: str = "wait again") -> None:
    """Return once a host serves the home's socket again; `app_not_running` after `seconds`
    (None: HOST_RETURN_SECONDS, or WARDIAN_CONTROL_TIMEOUT when set), whose hint ends with
    what to do `then`."""
    home = paths.wardian_home()
    limit = default_timeout(HOST_RETURN_SECONDS) if seconds is None else seconds
    patience = Patience(limit)
    while True:
        try:
            with ControlClient.connect(home, timeout=limit) as client:
                # A connection alone can reach the listening socket of a host still dying (its
                # descriptors are closed one after another): the next host is one that answers.
                client.request("host.status", None, timeout=limit)
            return
        except WardianError as error:
            if error.code != "app_not_running":
                raise
        if not patience.pause():
            raise WardianError(
                "app_not_running",
                f"the host went away during the wait and none came back within {limit:g} s",
                f"Start one with `wardian host start` (the agents go on in the terminal server), then {then}.",
                {"home": str(home), "reason": "host_gone", "waited_seconds": limit},
            )


def between_hosts(error: WardianError) -> bool:
    """Whether `error` met no host while the home's agents go on in the terminal server: a host
    restart or a crash, after which a next host is to come (not a host that was stopped)."""
    if error.code != "app_not_running" or lost_host(error):
        return False
    from wardian_core.process_locks import holder_pid  # only on this failure

    return holder_pid(paths.terminal_server_lock(paths.wardian_home())) is not None
