"""Asking the user, once per repository, whether its `.wardian/worktree.toml` commands may run.

The host runs set-up and tear-down, but only the CLI has the user's terminal: so the CLI settles
the question before it sends the request. `--trust-repo` says yes up front; on a terminal, a
repository whose own commands would run and that was never asked is asked once, and the answer
kept (`wardian_core.worktrees.trust`). Without a terminal nothing is asked: the host skips the
commands and its answer says how to trust the repository.
"""

import os
import sys
from pathlib import Path

import click

from wardian_core import paths
from wardian_core.worktrees.git import run

TRUST_REPO_HELP = "Trust the repository's own .wardian/worktree.toml set-up and tear-down commands (kept)."


def settle(folder: Path | None, trust_repo: bool) -> None:
    """Before a worktree of the repository holding `folder` is made or removed."""
    # Imported here: `agent spawn`, `clone` and every lifecycle verb beside them load this
    # module, and the trust file's models (pydantic) would more than double their start-up.
    from wardian_core.worktrees import trust

    top = _repository_top(folder) if folder is not None else None
    if top is None:
        return  # no repository: the host refuses with its own envelope
    home = paths.wardian_home()
    if trust_repo:
        trust.decide(home, top, True)
        return
    if trust.decision(home, top) is not None or not _interactive():
        return
    pending = _repository_commands_that_would_run(home, top)
    if pending:
        trust.decide(home, top, _ask(top, pending))


def _repository_top(folder: Path) -> Path | None:
    done = run(folder, "rev-parse", "--show-toplevel") if folder.is_dir() else None
    return Path(done.stdout.strip()) if done is not None and done.returncode == 0 and done.stdout.strip() else None


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def _repository_commands_that_would_run(home: Path, top: Path) -> dict[str, str]:
    from wardian_core.settings import load_settings
    from wardian_core.worktrees.commands import repository_commands

    own = load_settings(home).worktrees
    theirs = repository_commands(top)
    pending = {"setup": "" if own.setup else theirs.setup, "teardown": "" if own.teardown else theirs.teardown}
    return {phase: command for phase, command in pending.items() if command}


def _ask(top: Path, pending: dict[str, str]) -> bool:
    listed = "\n".join(f"  {phase}: {command}" for phase, command in pending.items())
    click.echo(
        f"{top / '.wardian' / 'worktree.toml'} asks to run, as you, in each worktree of {top}:\n{listed}", err=True
    )
    answer = click.confirm("Trust this repository's worktree commands? (asked once)", default=False, err=True)
    if not answer:
        click.echo(f"Not run. Trust it later with `wardian agent worktree trust {top}`.", err=True)
    return answer


def agent_workspace(target: str) -> Path | None:
    """The workspace of the agent `target` names, read from state.db; None when unknown."""
    from wardian_core.db.agents import find_agent_by_name, get_agent
    from wardian_core.db.connection import reading

    home = paths.wardian_home()
    if not paths.state_db(home).is_file():
        return None
    with reading(home) as conn:
        row = find_agent_by_name(conn, target) or get_agent(conn, target)
    return Path(row["workspace"] or home) if row else None


def spawn_folder() -> Path | None:
    """For `agent spawn`/`agent clone` (the options `worktree_options` adds): the folder whose
    repository the worktree will be of."""
    context = click.get_current_context(silent=True)
    if context is None:
        return None
    if "target" in context.params:
        return agent_workspace(context.params["target"])
    return Path(context.params.get("workspace") or os.getcwd()).expanduser()
