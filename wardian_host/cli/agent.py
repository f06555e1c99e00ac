"""`wardian agent`: who am I, who are my peers, and what are they doing."""

from collections.abc import Callable
from typing import Any, NamedTuple

import click

from wardian_core import paths
from wardian_core.statuses import STATUSES
from wardian_host.cli.lazy_group import LazyGroup
from wardian_host.cli.render import OutputOptions, emit_agent, emit_agents

# Subcommands that live in other modules (added by later issues) go here.
LIFECYCLE_COMMANDS: dict[str, str] = {
    name: f"wardian_host.cli.agent_lifecycle:{name}"
    for name in (
        "spawn",
        "kill",
        "pause",
        "resume",
        "restart",
        "clear",
        "update",
        "clone",
        "rename",
        "delete",
        "wait",
        "run",
    )
} | {
    "watch": "wardian_host.cli.agent_watch:watch",
    "attach": "wardian_host.cli.agent_attach:attach",
    "screen": "wardian_host.cli.agent_screen:screen",
    "worktree": "wardian_host.cli.worktree:worktree",
}


class AgentGroup(LazyGroup):
    """`wardian agent [x]` is shorthand for `wardian agent show [x]`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = args[0] if args else None
        if first not in ctx.help_option_names and first not in self.list_commands(ctx):
            args = ["show", *args]
        return super().parse_args(ctx, args)


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(
        [
            click.option("--fields", "fields_text", metavar="A,B", help="Only these fields, in this order."),
            click.option("--field", "field", metavar="NAME", help="Print one field's bare value per agent."),
            click.option("--verbose", is_flag=True, help="Add pid, started_at, last_status_at and launch_config."),
            click.option("--pretty", is_flag=True, help="Aligned text for people; coloured on a terminal."),
        ]
    ):
        command = decorator(command)
    return command


@click.group(cls=AgentGroup, lazy_commands=LIFECYCLE_COMMANDS)
def agent() -> None:
    """Look up yourself (no argument), a peer (NAME or UUID), or list agents."""


@agent.command("show")
@click.argument("reference", required=False, metavar="[NAME-OR-UUID]")
@output_options
def show(reference: str | None, fields_text: str | None, field: str | None, verbose: bool, pretty: bool) -> None:
    """Show one agent; without an argument, the agent this command runs in."""
    emit_agent(*shown_agent(reference, OutputFlags(fields_text, field, verbose, pretty)))


class OutputFlags(NamedTuple):
    """The output flags as given, checked once it is known which kind of record answers."""

    fields_text: str | None = None
    field: str | None = None
    verbose: bool = False
    pretty: bool = False

    def options(self, record_fields: tuple[str, ...] | None = None) -> OutputOptions:
        return OutputOptions.from_flags(self.fields_text, self.field, self.verbose, self.pretty, record_fields)


def shown_agent(
    reference: str | None, flags: OutputFlags
) -> tuple[dict[str, Any], OutputOptions, dict[str, Any] | None]:
    """The record `agent show` prints, the options it is printed with, and the notice beside it
    (`wardian agent show` and the MCP tool `show_agent`)."""
    from wardian_core.errors import WardianError
    from wardian_core.roster import show_agent
    from wardian_host.answers.connection import caller_environ
    from wardian_host.cli.live import persisted_notice

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


def _own_node_run(home: Any) -> dict[str, Any] | None:
    """Inside a workflow node run, `wardian agent` answers with the node run's own record."""
    from wardian_core.db.connection import reading
    from wardian_core.db.workflow_runs import find_node_run
    from wardian_host.answers.connection import caller_environ

    session_id = caller_environ().get("WARDIAN_SESSION_ID", "").strip()
    with reading(home) as conn:
        found = find_node_run(conn, session_id)
    if found is None:
        return None
    shown = {key: value for key, value in found.items() if key not in ("created", "pid", "kind")}
    name = f"{found['workflow_id']}/{found['node']}"
    return {"kind": "workflow_node", "node_kind": found.get("kind"), "name": name, "uuid": session_id} | shown


@agent.command("list")
@click.option("--scope", metavar="KIND[:ARG]", help="workspace[:PATH] or all (default: workspace inside an agent).")
@click.option("--status", type=click.Choice(STATUSES), help="Only agents with this status.")
@click.option("--class", "class_name", metavar="CLASS", help="Only agents of this class.")
@click.option("--workspace", metavar="PATH", help="Only agents in exactly this workspace (implies --scope all).")
@click.option("--remote", metavar="all|NAME[,NAME]", help="Also other machines' agents, each row with its machine.")
@output_options
def list_command(
    scope: str | None,
    status: str | None,
    class_name: str | None,
    workspace: str | None,
    remote: str | None,
    fields_text: str | None,
    field: str | None,
    verbose: bool,
    pretty: bool,
) -> None:
    """List agents, filtered by scope, status, class or workspace."""
    options = OutputOptions.from_flags(fields_text, field, verbose, pretty)
    if remote is not None:
        from wardian_host.cli.remote_listing import list_across

        list_across(remote, AgentFilters(scope, status, class_name, workspace), options)
        return
    records, notice = listed_agents(AgentFilters(scope, status, class_name, workspace))
    fill_usage(records, options)
    emit_agents(records, options, notice)


def fill_usage(records: list[dict[str, Any]], options: OutputOptions) -> None:
    """`usage` is read from state.db only when it is asked for: listing stays one read."""
    if records and "usage" in (options.field, *options.columns()):
        from wardian_core.db.usage import attach_summaries

        attach_summaries(paths.wardian_home(), records)


class AgentFilters(NamedTuple):
    scope: str | None = None
    status: str | None = None
    class_name: str | None = None
    workspace: str | None = None


def listed_agents(filters: AgentFilters) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The records `agent list` prints and the notice beside them (the CLI and the MCP tool `list_agents`)."""
    from wardian_core.roster import list_agents
    from wardian_host.answers.connection import caller_cwd, caller_environ
    from wardian_host.cli.live import persisted_notice

    home = paths.wardian_home()
    wanted = {"status": filters.status, "class_name": filters.class_name, "workspace": filters.workspace}
    records = list_agents(home, scope=filters.scope, environ=caller_environ(), cwd=caller_cwd(), **wanted)
    return records, persisted_notice(home, records)
