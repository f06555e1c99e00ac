"""`agent list --remote all|NAME[,NAME]`: this machine's roster and the remotes', one list."""

from typing import Any

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_host.answers.agents import AgentFilters, fill_usage, listed_agents
from wardian_host.answers.records import OutputOptions, agents_envelope
from wardian_host.cli.render import emit_agents, write_json, write_notice
from wardian_host.remote.roster import MachineRoster, chosen_remotes, machines_summary, merged, remote_rosters
from wardian_host.remote.settings import LOCAL_MACHINE


def list_across(wanted: str, filters: AgentFilters, options: OutputOptions) -> None:
    rosters = machine_rosters(wanted, filters, options)
    records = merged(rosters)
    shown = options._replace(fields=("machine", *options.columns()))
    machines = machines_summary(rosters)
    if options.field is None and not options.pretty:
        write_json(agents_envelope(records, shown) | {"machines": machines})
        return
    emit_agents(records, shown)
    write_notice({"machines": machines} if any(not machine["reachable"] for machine in machines) else None)


def machine_rosters(wanted: str, filters: AgentFilters, options: OutputOptions) -> list[MachineRoster]:
    """This machine's roster (with `all` or `local` among the names), then each remote's."""
    home = paths.wardian_home()
    remotes = chosen_remotes(home, wanted)
    rosters = remote_rosters(remotes, _list_args(filters, options))
    if wanted == "all" or LOCAL_MACHINE in wanted.split(","):
        rosters.insert(0, _local_roster(filters, options))
    return rosters


def _local_roster(filters: AgentFilters, options: OutputOptions) -> MachineRoster:
    try:
        records, _ = listed_agents(filters)
    except WardianError as error:
        return MachineRoster(machine=LOCAL_MACHINE, reachable=True, error=error.envelope()["error"])
    fill_usage(records, options)
    columns = options.columns()
    return MachineRoster(machine=LOCAL_MACHINE, reachable=True, agents=[_select(r, columns) for r in records])


def _select(record: dict[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    return {name: record[name] for name in columns}


def _list_args(filters: AgentFilters, options: OutputOptions) -> list[str]:
    """The remote's own `agent list` flags: the same filters, and the columns shown here."""
    flags = {"--scope": filters.scope, "--status": filters.status, "--class": filters.class_name}
    flags["--workspace"] = filters.workspace
    args = [part for flag, value in flags.items() if value is not None for part in (flag, value)]
    args += ["--limited"] if filters.limited else []
    return [*args, "--fields", ",".join(options.columns())]
