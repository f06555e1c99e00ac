"""`wardian --remote NAME …`, WARDIAN_REMOTE and `name@remote`: the command runs on that machine."""

import os
from collections.abc import Callable

import click

from wardian_core import paths
from wardian_host.remote.addressing import target_of
from wardian_host.remote.asker_claims import local_asker, with_asker_claim
from wardian_host.remote.options import Remote
from wardian_host.remote.settings import remote_named
from wardian_host.remote.ssh import run_passed_through

# Commands that need the user's terminal on the far side.
TERMINAL_COMMANDS = {("agent", "attach")}


def dispatch(args: list[str], run_here: Callable[[list[str]], object]) -> object:
    """Run `args` on the machine they name, or here with `run_here` when they name none."""
    target = target_of(args, os.environ.get("WARDIAN_REMOTE"))
    if target is None:
        return run_here(args)
    home = paths.wardian_home()
    paths.check_owner(home)
    remote = Remote(target.remote, remote_named(home, target.remote))
    args = with_asker_claim(target.args, local_asker(home))
    try:
        return run_passed_through(remote, args, terminal=tuple(args[:2]) in TERMINAL_COMMANDS)
    except KeyboardInterrupt:
        raise click.Abort() from None  # as click reports Ctrl-C of a command run here (exit 130)
