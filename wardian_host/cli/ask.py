"""`wardian ask`: ask an agent a question and wait for its structured reply; `ask show|list`."""

from typing import Any

import click

from wardian_core import paths
from wardian_core.asks import REQUEST_STATES
from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.ask import Question, ask_answer, request_answer, until_token
from wardian_host.answers.messages import read_message
from wardian_host.cli.message_source import message_options
from wardian_host.cli.render import write_json

ASK_COMMAND = "question"


class AskGroup(click.Group):
    """`wardian ask AGENT …` asks; `ask show` and `ask list` read the stored requests."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = args[0] if args else None
        if first not in ctx.help_option_names and first not in ("show", "list"):
            args = [ASK_COMMAND, *args]
        return super().parse_args(ctx, args)


@click.group(cls=AskGroup)
def ask() -> None:
    """Ask AGENT a question and wait for its structured reply:

    wardian ask AGENT [MESSAGE | --stdin | --file PATH] [--timeout DUR] [--until output:TOKEN] [--no-wait]

    The agent answers with `wardian reply <request-id> --status done --stdin`. `ask show ID` and
    `ask list` read the requests kept in state.db, answered or not.
    """


@ask.command(ASK_COMMAND, hidden=True)
@click.argument("target", metavar="AGENT")
@click.argument("message", required=False)
@message_options
@click.option("--timeout", "timeout_text", metavar="DUR", help="Give up waiting for the reply after DUR.")
@click.option("--until", "until_text", metavar="output:TOKEN", help="Complete on TOKEN in the output instead.")
@click.option("--no-wait", is_flag=True, help="Answer once the question is typed, with its request id.")
# Set by the asking machine's `wardian` on an ask that crossed machines: a claim, kept unverified.
@click.option("--asker-machine", hidden=True)
@click.option("--asker-name", hidden=True)
def question(
    target: str,
    message: str | None,
    from_stdin: bool,
    file: str | None,
    timeout_text: str | None,
    until_text: str | None,
    no_wait: bool,
    asker_machine: str | None,
    asker_name: str | None,
) -> None:
    """Ask AGENT a question and wait for its reply."""
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    text = read_message(message, from_stdin, file)
    question = Question(target, text, until_token(until_text), timeout, not no_wait, asker_machine, asker_name)
    write_json(ask_answer(question))


@ask.command("show")
@click.argument("request_id", metavar="REQUEST-ID")
def show(request_id: str) -> None:
    """One request with its reply, from state.db (with or without a running host)."""
    write_json(request_answer(request_id))


@ask.command("list")
@click.option("--agent", "agent_reference", metavar="NAME-OR-UUID", help="Only the requests asked of this agent.")
@click.option("--status", type=click.Choice(REQUEST_STATES), help="Only requests in this state.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True, help="At most this many.")
def list_requests(agent_reference: str | None, status: str | None, limit: int) -> None:
    """Requests, newest first."""
    from wardian_core import identity
    from wardian_core.db import agents as agent_rows
    from wardian_core.db import requests as request_rows
    from wardian_core.db.connection import reading

    with reading(paths.wardian_home()) as conn:
        agent_uuid = None
        if agent_reference is not None:
            agent_uuid = identity.find_in(agent_rows.list_agents(conn), agent_reference)["uuid"]
        found: list[dict[str, Any]] = request_rows.list_requests(
            conn, agent_uuid=agent_uuid, status=status, limit=limit
        )
    write_json({"schema": SCHEMA_VERSION, "requests": found})
