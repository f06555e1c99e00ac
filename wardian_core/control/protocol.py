"""Framing shared by the host and the client: versions, limits, encode and decode."""

import json
import time
from typing import Any

from wardian_core.errors import WardianError

PROTOCOL_VERSION = 2

# One frame is one line. asyncio's default stream limit is 64 KiB; a `send` body or
# a `watch` answer with a large output window needs more, and anything bigger than
# this is refused and the connection closed rather than buffered without bound.
MAX_FRAME_BYTES = 8 * 1024 * 1024

DEFAULT_TIMEOUT_SECONDS = 10.0


def default_timeout(unset: float = DEFAULT_TIMEOUT_SECONDS) -> float:
    """How long a request waits for the host: WARDIAN_CONTROL_TIMEOUT seconds when it is set,
    else `unset` (10 s, or more for a command whose work takes longer, e.g. stopping an agent)."""
    import math
    import os

    from wardian_core.durations import MAX_DURATION_SECONDS

    configured = os.environ.get("WARDIAN_CONTROL_TIMEOUT", "").strip()
    if not configured:
        return unset
    try:
        seconds = float(configured)
    except ValueError:
        seconds = math.nan
    # A socket takes no negative, infinite or NaN timeout (a traceback), and 0 would not wait at all.
    if not 0 < seconds <= MAX_DURATION_SECONDS:
        raise WardianError(
            "usage",
            f"WARDIAN_CONTROL_TIMEOUT must be a number of seconds above 0 and at most 720h, not {configured!r}",
            "Set it to the seconds a command may wait for the host, e.g. WARDIAN_CONTROL_TIMEOUT=30, "
            "or unset it for the defaults (10 s; 60 s for lifecycle commands).",
            {"variable": "WARDIAN_CONTROL_TIMEOUT", "value": configured},
        )
    return seconds


def deadline_after(timeout: float | None) -> float | None:
    """When a client that waits `timeout` seconds from now stops waiting (None: never): the
    frame's `deadline`, which the host checks (wardian_core.control.deadline)."""
    return None if timeout is None else time.time() + timeout


def encode(frame: dict[str, Any]) -> bytes:
    return json.dumps(frame, separators=(",", ":")).encode() + b"\n"


def request_frame(request_id: int, kind: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": request_id, "kind": kind, "params": params}


def ok_frame(request_id: int | None, result: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": request_id, "ok": True, "result": result}


def error_frame(request_id: int | None, envelope_error: dict[str, Any]) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False, "error": envelope_error}


def stream_frame(request_id: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": request_id, "stream": item}


def message_too_large(size: int, at_least: bool = False) -> WardianError:
    """The refusal of a request over MAX_FRAME_BYTES, by the CLI before sending or by the host
    (which stops reading it, so knows only a lower bound)."""
    said = f"at least {size}" if at_least else str(size)
    return WardianError(
        "message_too_large",
        f"the request is {said} bytes; the host takes at most {MAX_FRAME_BYTES} bytes (8 MiB) per request",
        "Split the text into several smaller sends (or a shorter --file), or shorten the description: "
        "everything a request carries counts.",
        {"size_bytes": size, "limit_bytes": MAX_FRAME_BYTES},
    )
