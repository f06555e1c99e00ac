"""Talking to the host from a command: the host started first for the commands that need one
(only the CLI starts hosts: an answer the host serves over MCP never does), and the answers printed."""

from typing import Any

from wardian_core import paths
from wardian_core.control.client import DEFAULT, ControlClient
from wardian_core.errors import WardianError
from wardian_host.answers import connection
from wardian_host.answers.records import envelope, live_agent_envelope
from wardian_host.cli.render import write_json


def connect_socket(start_host: bool = False) -> ControlClient:
    """The home's control socket itself (attach needs its bytes); `start_host`: start a host
    first when none runs."""
    home = paths.wardian_home()
    try:
        return ControlClient.connect(home)
    except WardianError as error:
        if not start_host or error.code != "app_not_running":
            raise
    from wardian_host.cli.host_starter import start_detached

    start_detached(home, use_running=True)  # parallel commands share the host that won the race
    return ControlClient.connect(home)


def ensure_host() -> None:
    """A host serves the home once this returns: the one running, or one started (`agent spawn`,
    `workflow run`, before they ask for what their answer computes)."""
    connect_socket(start_host=True).close()


def request(
    kind: str, params: dict[str, Any] | None = None, *, start_host: bool = False, timeout: float | None = DEFAULT
) -> Any:
    """`connection.request`; `start_host`: start a host first when none runs."""
    if not start_host:
        return connection.request(kind, params, timeout=timeout)
    with connect_socket(start_host=True) as client:
        return client.request(kind, params, timeout)


def emit_live_agent(snapshot: dict[str, Any], verbose: bool = False) -> None:
    write_json(live_agent_envelope(snapshot, verbose))


def emit(key: str, value: Any) -> None:
    write_json(envelope(key, value))
