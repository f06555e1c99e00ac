"""How an answer reaches the host, and where its caller stands.

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
from wardian_core.errors import WardianError


class Connection(Protocol):
    def __enter__(self) -> "Connection": ...

    def __exit__(self, *exc_info: object) -> None: ...

    def close(self) -> None: ...

    def exchange(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT
    ) -> Generator[dict[str, Any], None, Any]: ...

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any: ...


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


def connect(start_host: bool = False) -> Connection:
    """A connection to the home's host (the host's own routes, for a tool it serves); `start_host`:
    start one first when none runs."""
    own = in_host.get()
    return own if own is not None else connect_socket(start_host)


def connect_socket(start_host: bool = False) -> ControlClient:
    """The home's control socket itself, for a command that needs its bytes (attach)."""
    home = paths.wardian_home()
    try:
        return ControlClient.connect(home)
    except WardianError as error:
        if not start_host or error.code != "app_not_running":
            raise
    from wardian_host.cli.host_starter import start_detached

    start_detached(home, use_running=True)  # parallel commands share the host that won the race
    return ControlClient.connect(home)


def request(
    kind: str, params: dict[str, Any] | None = None, *, start_host: bool = False, timeout: float | None = DEFAULT
) -> Any:
    """`timeout`: seconds to wait for the answer (default: WARDIAN_CONTROL_TIMEOUT or 10); None: for ever."""
    with connect(start_host) as client:
        return client.request(kind, params, timeout)
