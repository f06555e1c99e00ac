"""How an answer reaches the host, how long it waits for it, and where its caller stands.

A `wardian` command talks to the home's control socket and stands in its own process: its
environment (`WARDIAN_SESSION_ID`) and working directory. A tool call the host serves over MCP
(`wardian_host/mcp`) is answered in a worker thread of the host, which sets `in_host` (the
host's own routes, with the relay's peer as the caller) and `caller_place` (the relay's
working directory, and the agent the host tied it to), so the same function serves the command
and the tool, each with its own caller.
"""

import os
from collections.abc import Generator, Mapping
from contextvars import ContextVar
from typing import Any, NamedTuple, Protocol

from wardian_core import paths
from wardian_core.control.client import DEFAULT, ControlClient
from wardian_core.control.protocol import default_timeout


class Connection(Protocol):
    def __enter__(self) -> "Connection": ...

    def __exit__(self, *exc_info: object) -> None: ...

    def close(self) -> None: ...

    def exchange(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT
    ) -> Generator[dict[str, Any], None, Any]: ...

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any: ...


# A lifecycle change starts or stops process trees (SIGTERM, then SIGKILL after a grace),
# which takes longer than a read: its requests wait this long unless told otherwise.
LIFECYCLE_SECONDS = 60.0


class CallerPlace(NamedTuple):
    """Where a caller stands: the variables that name its agent, and its working directory."""

    environ: Mapping[str, str]
    cwd: str


in_host: ContextVar[Connection | None] = ContextVar("wardian_in_host_connection", default=None)
caller_place: ContextVar[CallerPlace | None] = ContextVar("wardian_caller_place", default=None)


def caller_environ() -> Mapping[str, str]:
    place = caller_place.get()
    return os.environ if place is None else place.environ


def caller_cwd() -> str:
    place = caller_place.get()
    return os.getcwd() if place is None else place.cwd


def from_caller(path: str) -> str:
    """`path` as the caller means it: a relative one from its working directory."""
    return os.path.join(caller_cwd(), os.path.expanduser(path))


def connect() -> Connection:
    """A connection to the home's host: the host's own routes, for a tool it serves. It starts no
    host: a command that needs one started asks the CLI's `live.ensure_host` first."""
    own = in_host.get()
    return own if own is not None else ControlClient.connect(paths.wardian_home())


def request(kind: str, params: dict[str, Any] | None = None, *, timeout: float | None = DEFAULT) -> Any:
    """`timeout`: seconds to wait for the answer (default: WARDIAN_CONTROL_TIMEOUT or 10); None: for ever."""
    with connect() as client:
        return client.request(kind, params, timeout)


def lifecycle_timeout() -> float:
    """A lifecycle request's wait for the host: WARDIAN_CONTROL_TIMEOUT when set, else 60 s."""
    return default_timeout(LIFECYCLE_SECONDS)


def after_waiting(seconds: float | None, unset: float = LIFECYCLE_SECONDS / 2) -> float | None:
    """The wait for a request that itself waits `seconds` (None: for ever): those, then the time the
    host has to answer (WARDIAN_CONTROL_TIMEOUT when set, else `unset`)."""
    return None if seconds is None else seconds + default_timeout(unset)
