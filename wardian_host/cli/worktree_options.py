"""`--worktree [BRANCH]`, `--base REF` and `--trust-repo` of `agent spawn` and `agent clone`, and
the trust question the CLI settles before the host is asked for a worktree."""

from collections.abc import Callable
from typing import Any

import click

from wardian_host.cli import worktree_trust
from wardian_host.cli.worktree_trust import TRUST_REPO_HELP

# BRANCH is optional: `--worktree` alone names the branch after the agent.
NAMED_AFTER_AGENT = ""


_TRUST_REPO = "wardian.trust_repo"


def _keep_trust_repo(context: click.Context, _parameter: click.Parameter, value: bool) -> None:
    # Kept beside the command's own arguments, so spawn's and clone's signatures stay theirs.
    context.meta[_TRUST_REPO] = value


def worktree_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option(
        "--trust-repo", is_flag=True, expose_value=False, callback=_keep_trust_repo, help=TRUST_REPO_HELP
    )(command)
    command = click.option(
        "--base", metavar="REF", help="With --worktree: where the new branch starts (default: the workspace's HEAD)."
    )(command)
    return click.option(
        "--worktree",
        metavar="[BRANCH]",
        is_flag=False,
        flag_value=NAMED_AFTER_AGENT,
        default=None,
        help="Work in a new git worktree of the workspace, on new branch BRANCH (default: wardian/<name>).",
    )(command)


def trust_repo_flag() -> bool:
    """Whether the running command was given `--trust-repo`."""
    return bool(click.get_current_context().meta.get(_TRUST_REPO))


def settle_trust(worktree: str | None) -> None:
    """Before a worktree is asked for: whether the repository's own commands may run in it, asked
    once on a terminal (`worktree_trust`)."""
    if worktree is not None:
        worktree_trust.settle(worktree_trust.spawn_folder(), trust_repo_flag())
