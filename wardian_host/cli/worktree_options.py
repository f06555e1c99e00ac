"""`--worktree [BRANCH]`, `--base REF` and `--trust-repo` of `agent spawn` and `agent clone`, and their answer."""

from collections.abc import Callable
from typing import Any

import click

from wardian_core.errors import WardianError
from wardian_core.fields import DEFAULT_FIELDS, to_record
from wardian_host.cli import worktree_trust
from wardian_host.cli.live import live_agent_envelope
from wardian_host.cli.render import OutputOptions, agent_envelope
from wardian_host.cli.worktree_trust import TRUST_REPO_HELP

AGENT_FIELDS = DEFAULT_FIELDS + ("worktree", "worktree_folder", "branch")
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


def worktree_request(worktree: str | None, base: str | None) -> dict[str, Any] | None:
    context = click.get_current_context(silent=True)
    trust_repo = context.meta.get(_TRUST_REPO) if context is not None else None  # None: not the CLI's spawn/clone
    if worktree is None:
        for flag, given in (("--base", base is not None), ("--trust-repo", bool(trust_repo))):
            if given:
                raise WardianError("usage", f"{flag} needs --worktree", f"Add --worktree [BRANCH], or drop {flag}.")
        return None
    if trust_repo is not None:
        worktree_trust.settle(worktree_trust.spawn_folder(), trust_repo)
    return {"branch": worktree or None, "base": base}


def made_envelope(answer: dict[str, Any]) -> dict[str, Any]:
    """The new agent, and with a worktree what its making did (carried files, set-up outcome)."""
    made: dict[str, Any] | None = answer.get("worktree_made")
    if made is None:
        return live_agent_envelope(answer)
    # The same keys as a move's answer (`agent worktree enable`): `worktree`, `carried_over`, ...
    return agent_envelope(to_record(answer, "live"), OutputOptions(fields=AGENT_FIELDS)) | made
