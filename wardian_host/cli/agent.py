"""`wardian agent`: who am I, who are my peers, and what are they doing."""

from collections.abc import Callable
from typing import Any

import click

from wardian_core.statuses import STATUSES
from wardian_host.answers.agents import AgentFilters, OutputFlags, fill_usage, listed_agents, shown_agent
from wardian_host.answers.records import OutputOptions
from wardian_host.cli.lazy_group import LazyGroup
from wardian_host.cli.render import emit_agent, emit_agents

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
    "recording": "wardian_host.cli.agent_recording:recording",
    "budget": "wardian_host.cli.agent_budget:budget",
    "worktree": "wardian_host.cli.worktree:worktree",
    "resume-limit": "wardian_host.cli.agent_limit:resume_limit",
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


@agent.command("list")
@click.option("--scope", metavar="KIND[:ARG]", help="workspace[:PATH] or all (default: workspace inside an agent).")
@click.option("--status", type=click.Choice(STATUSES), help="Only agents with this status.")
@click.option("--class", "class_name", metavar="CLASS", help="Only agents of this class.")
@click.option("--workspace", metavar="PATH", help="Only agents in exactly this workspace (implies --scope all).")
@click.option("--remote", metavar="all|NAME[,NAME]", help="Also other machines' agents, each row with its machine.")
@click.option("--limited", is_flag=True, help="Only agents waiting out a usage limit; adds the `limit` field.")
@output_options
def list_command(
    scope: str | None,
    status: str | None,
    class_name: str | None,
    workspace: str | None,
    remote: str | None,
    limited: bool,
    fields_text: str | None,
    field: str | None,
    verbose: bool,
    pretty: bool,
) -> None:
    """List agents, filtered by scope, status, class or workspace."""
    options = OutputOptions.from_flags(fields_text, field, verbose, pretty)
    if limited and fields_text is None and field is None:
        options = options._replace(fields=(*options.columns(), "limit"))
    filters = AgentFilters(scope, status, class_name, workspace, limited)
    if remote is not None:
        from wardian_host.cli.remote_listing import list_across

        list_across(remote, filters, options)
        return
    records, notice = listed_agents(filters)
    fill_usage(records, options)
    emit_agents(records, options, notice)
