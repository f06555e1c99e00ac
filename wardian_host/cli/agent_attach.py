"""`wardian agent attach`: sit at an agent's terminal; detach leaves it running."""

import sys

import click

from wardian_core.errors import WardianError
from wardian_host.cli.attach_client import DEFAULT_DETACH_KEYS, parse_detach_keys, run_attach
from wardian_host.cli.live import connect_socket, emit


@click.command("attach")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--read-only", is_flag=True, help="Watch without typing or resizing.")
@click.option("--detach-keys", default=DEFAULT_DETACH_KEYS, show_default=True, help="Keys that detach.")
def attach(target: str, read_only: bool, detach_keys: str) -> None:
    """Connect this terminal to an agent's PTY (raw mode, resize followed, several clients)."""
    keys = parse_detach_keys(detach_keys)
    if not read_only and not sys.stdin.isatty():
        raise _no_keyboard(target)
    result = run_attach(connect_socket, target, read_only, keys)
    sys.stdout.write("\r\n")
    emit("attach", result)


def _no_keyboard(target: str) -> WardianError:
    """Typing needs a terminal: from a file, a pipe or /dev/null (cron, nohup, CI) there are no
    keys to forward, no detach keys, and no window size to give the agent."""
    return WardianError(
        "usage",
        "agent attach types what this terminal's keyboard sends, and standard input is not a terminal",
        f"Watch it with `wardian agent attach {target} --read-only` (until the agent exits or the command "
        f"is interrupted) or `wardian agent watch {target} --follow`; type into it with `wardian send`.",
        {"agent": target, "stdin": "not a terminal"},
    )
