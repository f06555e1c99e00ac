"""`wardian agent attach`: sit at an agent's terminal; detach leaves it running."""

import sys

import click

from wardian_host.cli.attach_client import DEFAULT_DETACH_KEYS, parse_detach_keys, run_attach
from wardian_host.cli.live import connect, emit


@click.command("attach")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--read-only", is_flag=True, help="Watch without typing or resizing.")
@click.option("--detach-keys", default=DEFAULT_DETACH_KEYS, show_default=True, help="Keys that detach.")
def attach(target: str, read_only: bool, detach_keys: str) -> None:
    """Connect this terminal to an agent's PTY (raw mode, resize followed, several clients)."""
    keys = parse_detach_keys(detach_keys)
    result = run_attach(connect, target, read_only, keys)
    sys.stdout.write("\r\n")
    emit("attach", result)
