"""A request's deadline: the host starts no request after its client stopped waiting for it.

A client that times out reports its request as unanswered. Without a deadline a host that
was stopped (SIGSTOP, swapped out, overloaded) would read the request later and act on it:
a kill nobody is told about. The deadline is wall-clock seconds since the epoch, because
both ends run on one machine and read the same clock. A request without one (its client
waits for ever) never expires. The client sets it (`protocol.deadline_after`, so the CLI's
start-up skips this module); the host checks it here.
"""

import math
import time

from wardian_core.errors import WardianError


def refuse_if_late(kind: str, deadline: object) -> None:
    """Raise instead of starting a request whose client has already stopped waiting."""
    if deadline is None:
        return
    seconds = _seconds(deadline)
    if seconds is None:
        raise WardianError(
            "bad_request",
            f"the deadline of {kind!r} is not a time",
            "Send `deadline` as seconds since the epoch (a number), or leave it out.",
            {"kind": kind},
        )
    late_by = time.time() - seconds
    if late_by > 0:
        import logging  # only the host refuses: logging stays out of the CLI's start-up

        logging.getLogger(__name__).warning(
            "refused %s: read %.1f s after its deadline, when its client had stopped waiting", kind, late_by
        )
        raise WardianError(
            "control_endpoint_timeout",
            f"{kind!r} reached the host {late_by:.1f} s after its deadline and was not started",
            "Its client had already reported it as timed out; send it again if it is still wanted.",
            {"kind": kind, "deadline": deadline},
        )


def _seconds(deadline: object) -> float | None:
    """The deadline as a finite float; None when it is no time (JSON's integers are unbounded,
    and one past a float's range, 10**400, made float() raise OverflowError mid-request)."""
    if isinstance(deadline, bool) or not isinstance(deadline, int | float):
        return None
    try:
        seconds = float(deadline)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None
