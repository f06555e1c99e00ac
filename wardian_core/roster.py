"""The read path of `agent show/list`: who exists and what each is doing.

Answers from state.db (`status_source: persisted`); the host's live view slots in
through `load_rows` once a host runs. Kept on plain data so the CLI starts fast.

A stored row says what the host that wrote it last knew. While no host runs, a row that
says its agent runs was left by a host that is gone (a crash, a kill -9): it is marked
`host_gone`, since its status and pid may no longer be true; the next host's recovery
finds out (`headless` or `off`).
"""

import os
from pathlib import Path
from typing import Any

from wardian_core import fields, identity
from wardian_core.control import endpoint
from wardian_core.db import agents as agent_rows
from wardian_core.db.connection import reading
from wardian_core.errors import WardianError
from wardian_core.scope import Scope, parse_scope

Environ = "os._Environ[str] | dict[str, str]"

# How long a read waits for the host before answering from state.db instead. A healthy host
# answers `agents.list` in milliseconds; 2 s absorbs one busy with a burst of output on a
# slow machine, while a stuck host (stopped, swapped out) costs a reader 2 s, not the
# control timeout's 10, for an answer state.db can give.
READ_DEADLINE_SECONDS = 2.0
# The statuses that say an agent's process runs (`off` and `error` say it ended).
RUNNING_STATUSES = frozenset({"starting", "idle", "processing", "action_required", "headless"})


def read_deadline() -> float:
    from wardian_core.control.protocol import default_timeout

    return min(READ_DEADLINE_SECONDS, default_timeout())


def load_rows(home: Path) -> tuple[list[dict[str, Any]], str]:
    """Every agent row and where the answer came from: the live host, else state.db."""
    live, host_runs = _live_rows(home)
    if live is not None:
        return live, "live"
    with reading(home) as conn:
        rows = agent_rows.list_agents(conn)
    return (rows if host_runs else [_left_by_a_gone_host(row) for row in rows]), "persisted"


def _left_by_a_gone_host(row: dict[str, Any]) -> dict[str, Any]:
    return row | {"host_gone": True} if row["status"] in RUNNING_STATUSES else row


def _live_rows(home: Path) -> tuple[list[dict[str, Any]] | None, bool]:
    """The host's rows (None when it gave none), and whether a host runs (it may not have answered)."""
    if not endpoint.socket_path(home).exists():
        return None, False  # no host: skip the connect entirely
    from wardian_core.control.client import ControlClient

    deadline = read_deadline()
    rows: list[dict[str, Any]] = []
    try:
        with ControlClient.connect(home, timeout=deadline) as client:
            exchange = client.exchange("agents.list", timeout=deadline)  # pages, so no answer outgrows a frame
            while True:
                try:
                    rows.extend(next(exchange)["agents"])
                except StopIteration:
                    return rows, True
    except WardianError as error:
        # A stale socket of a dead host, or a host that did not answer in time: state.db answers.
        if error.code in ("app_not_running", "control_endpoint_timeout"):
            return None, error.code == "control_endpoint_timeout"
        raise


def load_records(home: Path) -> list[dict[str, Any]]:
    rows, source = load_rows(home)
    return [fields.to_record(row, source) for row in rows]


def show_agent(home: Path, reference: str | None, environ: Any = None) -> dict[str, Any]:
    """One agent by uuid or name, or the caller itself when no reference is given."""
    env = os.environ if environ is None else environ
    if reference is not None:
        return identity.find_in(load_records(home), reference)
    session_id = identity.session_id_from_env(env)
    try:
        return identity.find_in(load_records(home), session_id)
    except WardianError as error:
        raise identity.stale_session(session_id) from error


def _caller(records: list[dict[str, Any]], env: Any) -> dict[str, Any] | None:
    session_id = env.get("WARDIAN_SESSION_ID", "").strip()
    return next((r for r in records if r["uuid"] == session_id), None) if session_id else None


def _scope_workspace(scope: Scope, caller: dict[str, Any] | None, cwd: str) -> str | None:
    if scope.kind != "workspace":
        return None
    if scope.argument:
        return identity.resolve_workspace(os.path.join(cwd, scope.argument))
    if caller and caller["workspace"]:
        return str(caller["workspace"])
    return identity.resolve_workspace(cwd)


def list_agents(
    home: Path,
    *,
    scope: str | None = None,
    status: str | None = None,
    class_name: str | None = None,
    workspace: str | None = None,
    environ: Any = None,
    cwd: str | None = None,
) -> list[dict[str, Any]]:
    """`environ` and `cwd`: the caller's (its agent's variable, where it stands); this process's by default."""
    env = os.environ if environ is None else environ
    here = os.getcwd() if cwd is None else cwd
    parsed = parse_scope(scope) if scope is not None else None
    records = load_records(home)
    if workspace is not None:  # an exact workspace implies --scope all
        wanted_workspace: str | None = identity.resolve_workspace(os.path.join(here, workspace))
    else:
        caller = _caller(records, env)
        if parsed is None:
            parsed = Scope("workspace") if caller and caller["workspace"] else Scope("all")
        wanted_workspace = _scope_workspace(parsed, caller, here)
    return [
        record
        for record in records
        if (wanted_workspace is None or record["workspace"] == wanted_workspace)
        and (status is None or record["status"] == status)
        and (class_name is None or record["class"] == class_name)
    ]
