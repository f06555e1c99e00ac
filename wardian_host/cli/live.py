"""Talking to the host from a command: one request, the host started when asked to
(`connect` and `request` are `wardian_host.answers.connection`'s, re-exported for the commands)."""

from pathlib import Path
from typing import Any

from wardian_core.control.protocol import default_timeout
from wardian_core.errors import SCHEMA_VERSION
from wardian_core.fields import to_record
from wardian_host.answers.connection import connect as connect
from wardian_host.answers.connection import connect_socket as connect_socket
from wardian_host.answers.connection import request as request
from wardian_host.cli.render import OutputOptions, agent_envelope, write_json

# A lifecycle change starts or stops process trees (SIGTERM, then SIGKILL after a grace),
# which takes longer than a read: its commands wait this long unless told otherwise.
LIFECYCLE_SECONDS = 60.0


def lifecycle_timeout() -> float:
    """A lifecycle command's wait for the host: WARDIAN_CONTROL_TIMEOUT when set, else 60 s."""
    return default_timeout(LIFECYCLE_SECONDS)


def after_waiting(seconds: float | None, unset: float = LIFECYCLE_SECONDS / 2) -> float | None:
    """The wait for a request that itself waits `seconds` (None: for ever): those, then the time the
    host has to answer (WARDIAN_CONTROL_TIMEOUT when set, else `unset`)."""
    return None if seconds is None else seconds + default_timeout(unset)


def persisted_notice(home: Path, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Why an answer read from state.db needs a word: a host runs but did not answer in time
    (the roster gave up on it after `roster.read_deadline()`), or none runs and the one that
    wrote some agents' running statuses is gone. None otherwise."""
    if not records or records[0]["status_source"] != "persisted":
        return None
    from wardian_host.daemon.host_lock import running_host_pid

    pid = running_host_pid(home)
    if pid is None:
        return _host_gone_notice(records)
    from wardian_core import roster  # state.db's readers: `send` and the lifecycle commands never load them

    deadline = roster.read_deadline()
    return {
        "reason": "host_not_answering",
        "message": f"the host (pid {pid}) did not answer within {deadline:g} s: "
        "this answer is read from state.db (status_source: persisted) and may lag behind the agents",
        # Not `host stop && host start`: that ends every agent, and a host that does not answer
        # is what `host restart` (or a kill of the host alone) mends with the agents kept.
        "hint": "The host may be stopped or overloaded: check `wardian host logs`, or restart it with "
        "`wardian host restart`, which keeps every agent running. If it does not answer that either, "
        f"end it with `kill -9 {pid}` and run `wardian host start`: the agents go on in the terminal "
        "server and the new host adopts them, live.",
        "host_pid": pid,
        "deadline_seconds": deadline,
    }


def _host_gone_notice(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """No host runs: the agents whose stored status says they run were left so by a host that is gone."""
    stale = [record["name"] for record in records if record.get("host_gone")]
    if not stale:
        return None
    return {
        "reason": "host_gone",
        "message": f"no host runs: {len(stale)} agent(s) show what the host that ended last recorded "
        "(host_gone: true); their processes may have ended since",
        "hint": "`wardian host start`: the new host adopts every agent the terminal server still holds, live "
        "and interactive; one whose terminal is gone too becomes `headless` (still running) or `off`.",
        "agents": stale,
    }


def live_agent_envelope(snapshot: dict[str, Any], verbose: bool = False) -> dict[str, Any]:
    """The JSON a lifecycle command prints for the agent the host answered with."""
    return agent_envelope(to_record(snapshot, "live"), OutputOptions(verbose=verbose))


def emit_live_agent(snapshot: dict[str, Any], verbose: bool = False) -> None:
    write_json(live_agent_envelope(snapshot, verbose))


def envelope(key: str, value: Any) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, key: value}


def emit(key: str, value: Any) -> None:
    write_json(envelope(key, value))
