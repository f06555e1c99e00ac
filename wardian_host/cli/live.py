"""Talking to the host from a command: one request, the host started when asked to."""

from typing import Any

from wardian_core import paths
from wardian_core.control.client import DEFAULT, ControlClient
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.fields import to_record
from wardian_host.cli.render import OutputOptions, emit_agent, write_json


def connect(start_host: bool = False) -> ControlClient:
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


def emit_live_agent(snapshot: dict[str, Any], verbose: bool = False) -> None:
    emit_agent(to_record(snapshot, "live"), OutputOptions(verbose=verbose))


def emit(key: str, value: Any) -> None:
    write_json({"schema": SCHEMA_VERSION, key: value})
