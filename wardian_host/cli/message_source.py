"""The options that say where a command's message comes from: --stdin or --file PATH beside
MESSAGE (send, ask, reply); `read_message` reads it (`wardian_host.answers.messages`)."""

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def message_options(command: F) -> F:
    """`--stdin` and `--file PATH`, beside the command's own optional MESSAGE argument."""
    command = click.option("--file", "file", metavar="PATH", help="Read the message from a file.")(command)
    return click.option("--stdin", "from_stdin", is_flag=True, help="Read the message from standard input.")(command)
