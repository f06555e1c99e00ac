"""`wardian agent worktree list|enable|join|disable|remove|trust`: agents' git worktrees.

`list` reads state.db and git itself (no host needed); the others go through the host (started
when none runs, as `spawn` does), which stops and relaunches an agent it moves.
"""

from pathlib import Path
from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.fields import DEFAULT_FIELDS, live_agent
from wardian_host.answers.connection import lifecycle_timeout
from wardian_host.cli import worktree_trust
from wardian_host.cli.live import request
from wardian_host.cli.render import write_json
from wardian_host.cli.worktree_trust import TRUST_REPO_HELP

AGENT_FIELDS = (*DEFAULT_FIELDS, "worktree", "worktree_folder", "branch")


@click.group("worktree")
def worktree() -> None:
    """Give agents git worktrees of their own, and remove them without losing work."""


@worktree.command("list")
def list_command() -> None:
    """Every worktree Wardian made: its agents, and whether it can be removed (and why not)."""
    from wardian_core.db.connection import reading
    from wardian_core.db.worktrees import list_worktrees
    from wardian_core.worktrees.operations import describe

    home = paths.wardian_home()
    views: list[dict[str, Any]] = []
    if paths.state_db(home).is_file():
        with reading(home) as conn:
            views = [describe(conn, record).model_dump(mode="json") for record in list_worktrees(conn)]
    write_json({"schema": SCHEMA_VERSION, "worktrees": views})


def _emit_move(answer: dict[str, Any]) -> None:
    shown = {key: value for key, value in answer.items() if key != "agent"}
    write_json({"schema": SCHEMA_VERSION, "agent": live_agent(answer["agent"], AGENT_FIELDS)} | shown)


@worktree.command("enable")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--branch", help="The new branch (default: wardian/<agent name>).")
@click.option("--base", metavar="REF", help="Where the branch starts (default: the workspace's HEAD).")
@click.option("--trust-repo", is_flag=True, help=TRUST_REPO_HELP)
def enable(target: str, branch: str | None, base: str | None, trust_repo: bool) -> None:
    """Move an agent into a new worktree of its workspace (relaunched there, fresh session)."""
    worktree_trust.settle(worktree_trust.agent_workspace(target), trust_repo)
    params = {"target": target, "worktree": {"branch": branch, "base": base}}
    _emit_move(request("worktree.enable", params, start_host=True, timeout=None))


@worktree.command("join")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--worktree", "reference", required=True, metavar="ID-OR-PATH", help="The worktree to join.")
def join(target: str, reference: str) -> None:
    """Move an agent into an existing worktree (relaunched there, fresh session)."""
    params = {"target": target, "worktree": reference}
    _emit_move(request("worktree.join", params, start_host=True, timeout=lifecycle_timeout()))


@worktree.command("disable")
@click.argument("target", metavar="NAME-OR-UUID")
def disable(target: str) -> None:
    """Move an agent back to its workspace (relaunched there, fresh session); the worktree stays."""
    _emit_move(request("worktree.disable", {"target": target}, start_host=True, timeout=lifecycle_timeout()))


@worktree.command("remove")
@click.argument("reference", metavar="ID-OR-PATH")
@click.option("--force", is_flag=True, help="Archive what would be lost to refs/wardian/archive/<id>, then remove.")
@click.option("--delete-branch", is_flag=True, help="Delete its branch too, only when merged (squash included).")
@click.option("--trust-repo", is_flag=True, help=TRUST_REPO_HELP)
def remove(reference: str, force: bool, delete_branch: bool, trust_repo: bool) -> None:
    """Remove a worktree no agent works in; refused when it would lose work (see docs/worktrees.md)."""
    worktree_trust.settle(_source_folder(reference), trust_repo)
    params = {"worktree": reference, "force": force, "delete_branch": delete_branch}
    answer = request("worktree.remove", params, start_host=True, timeout=None)
    write_json({"schema": SCHEMA_VERSION, "worktree": answer})


def _source_folder(reference: str) -> Path | None:
    """The repository the worktree `reference` names was made from; None when unknown here
    (the host answers `not_found` itself)."""
    from wardian_core.db.connection import reading
    from wardian_core.worktrees.operations import find

    home = paths.wardian_home()
    if not paths.state_db(home).is_file():
        return None
    with reading(home) as conn:
        try:
            return find(conn, reference).source_folder
        except WardianError:
            return None


@worktree.command("trust")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--revoke", is_flag=True, help="Stop trusting it (its commands are skipped again).")
def trust_command(folder: Path | None, revoke: bool) -> None:
    """Let the repository holding FOLDER (default: here) run its .wardian/worktree.toml commands."""
    from wardian_core.worktrees import trust
    from wardian_core.worktrees.creating import repository_top

    top = repository_top((folder or Path.cwd()).expanduser().absolute())
    trust.decide(paths.wardian_home(), top, not revoke)
    write_json({"schema": SCHEMA_VERSION, "repository": str(top), "trusted": not revoke})
