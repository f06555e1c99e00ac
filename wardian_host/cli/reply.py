"""`wardian reply`: answer a `wardian ask` request; the host records it and wakes the asker."""

import click

from wardian_core.asks import REPLY_STATUSES
from wardian_host.answers.messages import read_message
from wardian_host.answers.reply import reply_answer
from wardian_host.cli.message_source import message_options
from wardian_host.cli.render import write_json


@click.command("reply")
@click.argument("request_id", metavar="REQUEST-ID")
@click.argument("message", required=False)
@message_options
@click.option("--status", type=click.Choice(REPLY_STATUSES), required=True, help="How the request ended.")
def reply(request_id: str, message: str | None, from_stdin: bool, file: str | None, status: str) -> None:
    """Answer request REQUEST-ID with MESSAGE (or --stdin, --file PATH)."""
    write_json(reply_answer(request_id, read_message(message, from_stdin, file), status))
