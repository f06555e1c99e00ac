"""What `agent list` and `agent show` answer (and the MCP tools `list_agents` and `show_agent`):
the roster's records, the fields asked for, and a notice when they come from state.db."""

from pathlib import Path
from typing import Any, NamedTuple

from wardian_core import paths
from wardian_host.answers.connection import caller_cwd, caller_environ
from wardian_host.answers.records import OutputOptions


class OutputFlags(NamedTuple):
    """The output flags as given, checked once it is known which kind of record answers."""

    fields_text: str | None = None
    field: str | None = None
    verbose: bool = False
    pretty: bool = False

    def options(self, record_fields: tuple[str, ...] | None = None) -> OutputOptions:
        return OutputOptions.from_flags(self.fields_text, self.field, self.verbose, self.pretty, record_fields)


class AgentFilters(NamedTuple):
    scope: str | None = None
    status: str | None = None
    class_name: str | None = None
    workspace: str | None = None
    # Only agents waiting out a usage limit (their `limit` set).
    limited: bool = False


def shown_agent(
    reference: str | None, flags: OutputFlags
) -> tuple[dict[str, Any], OutputOptions, dict[str, Any] | None]:
    """The record `agent show` prints, the options it is printed with, and the notice beside it
    (`wardian agent show` and the MCP tool `show_agent`)."""
    from wardian_core.errors import WardianError
    from wardian_core.roster import show_agent

    # Without a reference the caller may be a workflow node run, whose record has other
    # fields: the flags are checked once it is known which record answers.
    early = flags.options() if reference is not None else None
    home = paths.wardian_home()
    try:
        record = show_agent(home, reference, caller_environ())
    except WardianError as error:
        node_run = _own_node_run(home) if reference is None and error.code == "not_found" else None
        if node_run is None:
            raise
        return node_run, flags.options(tuple(node_run)), None
    options = early or flags.options()
    fill_usage([record], options)
    return record, options, persisted_notice(home, [record])


def _own_node_run(home: Path) -> dict[str, Any] | None:
    """Inside a workflow node run, `wardian agent` answers with the node run's own record."""
    from wardian_core.db.connection import reading
    from wardian_core.db.workflow_runs import find_node_run

    session_id = caller_environ().get("WARDIAN_SESSION_ID", "").strip()
    with reading(home) as conn:
        found = find_node_run(conn, session_id)
    if found is None:
        return None
    shown = {key: value for key, value in found.items() if key not in ("created", "pid", "kind")}
    name = f"{found['workflow_id']}/{found['node']}"
    return {"kind": "workflow_node", "node_kind": found.get("kind"), "name": name, "uuid": session_id} | shown


def listed_agents(filters: AgentFilters) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The records `agent list` prints and the notice beside them (the CLI and the MCP tool `list_agents`)."""
    from wardian_core.roster import list_agents

    home = paths.wardian_home()
    wanted = {"status": filters.status, "class_name": filters.class_name, "workspace": filters.workspace}
    records = list_agents(home, scope=filters.scope, environ=caller_environ(), cwd=caller_cwd(), **wanted)
    if filters.limited:
        records = [record for record in records if record.get("limit")]
    return records, persisted_notice(home, records)


def fill_usage(records: list[dict[str, Any]], options: OutputOptions) -> None:
    """`usage` is read from state.db only when it is asked for: listing stays one read."""
    if records and "usage" in (options.field, *options.columns()):
        from wardian_core.db.usage import attach_summaries

        attach_summaries(paths.wardian_home(), records)


def persisted_notice(home: Path, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Why an answer read from state.db needs a word: a host runs but did not answer in time
    (the roster gave up on it after `roster.read_deadline()`), or none runs and the one that
    wrote some agents' running statuses is gone. None otherwise."""
    if not records or records[0]["status_source"] != "persisted":
        return None
    from wardian_core.process_locks import holder_pid

    pid = holder_pid(paths.host_lock(home))
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
