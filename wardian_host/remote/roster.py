"""Several machines' rosters as one: `agent list --remote all`, and the web view's tiles.

Each machine is asked at once; one that does not answer is listed as unreachable with its
error, never a failure of the whole list.
"""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from wardian_core.errors import WardianError
from wardian_host.remote.options import Remote
from wardian_host.remote.settings import LOCAL_MACHINE, configured_remotes
from wardian_host.remote.ssh import run_captured

# A roster read: longer than ssh's own ConnectTimeout, so that one names the failure.
ROSTER_SECONDS = 60.0


class MachineRoster(BaseModel):
    machine: str
    reachable: bool
    agents: list[dict[str, Any]] = []
    error: dict[str, Any] | None = None


def chosen_remotes(home: Path, wanted: str) -> list[Remote]:
    """`all`, or comma-separated remote names, as configured remotes (`local` is this machine)."""
    remotes = configured_remotes(home)
    names = sorted(remotes) if wanted == "all" else [name for name in wanted.split(",") if name != LOCAL_MACHINE]
    unknown = [name for name in names if name not in remotes]
    if unknown:
        raise WardianError(
            "not_found",
            f"no remote named {unknown[0]!r}",
            "Name a [remotes.NAME] table of settings.toml, or `all`.",
            {"remote": unknown[0], "known": sorted(remotes)},
        )
    return [Remote(name, remotes[name]) for name in names]


def remote_rosters(remotes: list[Remote], list_args: list[str]) -> list[MachineRoster]:
    """Each remote's `agent list LIST_ARGS`, read in parallel, in the order given."""
    if not remotes:
        return []
    with ThreadPoolExecutor(max_workers=len(remotes)) as pool:
        return list(pool.map(lambda remote: _roster_of(remote, list_args), remotes))


def _roster_of(remote: Remote, list_args: list[str]) -> MachineRoster:
    import json

    try:
        ran = run_captured(remote, ["agent", "list", *list_args], timeout=ROSTER_SECONDS)
    except WardianError as error:
        reachable = error.code != "remote_unreachable"  # a protocol mismatch is an answer
        return MachineRoster(machine=remote.name, reachable=reachable, error=error.envelope()["error"])
    if ran.returncode != 0:
        answer = json.loads(ran.stderr) if ran.stderr.strip().startswith("{") else {}
        return MachineRoster(machine=remote.name, reachable=True, error=answer.get("error", {"message": ran.stderr}))
    agents = json.loads(ran.stdout)["agents"]
    return MachineRoster(machine=remote.name, reachable=True, agents=agents)


def merged(rosters: list[MachineRoster]) -> list[dict[str, Any]]:
    """Every reachable machine's agents, each record saying its machine first."""
    return [{"machine": roster.machine} | agent for roster in rosters for agent in roster.agents]


def machines_summary(rosters: list[MachineRoster]) -> list[dict[str, Any]]:
    """One line per machine: reachable or not, how many agents, and the error when there is one."""
    return [
        {"machine": roster.machine, "reachable": roster.reachable, "agents": len(roster.agents)}
        | ({"error": roster.error} if roster.error else {})
        for roster in rosters
    ]
