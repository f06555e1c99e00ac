"""`wardian remote-run`: the far side of `--remote`, run by the remote machine's login shell.

It checks the caller's protocol, then runs the command as `wardian` would here. When the
ssh link dies the session's pipes close: the command ends then instead of waiting on
(an `agent wait` would otherwise outlive the caller that no one can answer).
"""

import os
import select
import threading

import click

from wardian_host.remote.protocol import PROTOCOL, RUNNER, mismatch_here

LINK_LOST_EXIT = 1
_CLOSED = select.POLLERR | select.POLLHUP


@click.command(RUNNER, hidden=True, context_settings={"ignore_unknown_options": True})
@click.option("--protocol", "asked", type=int, required=True, help="The caller's remote protocol.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def remote_run(asked: int, args: tuple[str, ...]) -> object:
    """Run a command sent by another machine's `wardian --remote` (not for people)."""
    if asked != PROTOCOL:
        raise mismatch_here(asked)
    threading.Thread(target=_end_when_link_closes, args=((1, 2),), daemon=True).start()
    from wardian_host.cli import cli

    return cli.main(args=list(args), prog_name="wardian", standalone_mode=False)


def _end_when_link_closes(descriptors: tuple[int, ...]) -> None:
    """Leave as soon as sshd closes the session's output: nobody reads the answer any more."""
    poller = select.poll()
    for descriptor in descriptors:
        poller.register(descriptor, 0)  # no events asked: POLLERR and POLLHUP are always reported
    while True:
        if any(events & _CLOSED for _, events in poller.poll()):
            os._exit(LINK_LOST_EXIT)
