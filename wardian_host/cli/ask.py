"""`wardian ask`: ask an agent a question and wait for its structured reply; `ask show|list`."""

from typing import Any, NamedTuple

import click

from wardian_core import paths
from wardian_core.asks import REQUEST_STATES
from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_host.cli.message_source import message_options, read_message
from wardian_host.cli.render import write_json

# How long past its own limit the CLI waits for the host's answer: the question may first
# wait for a starting agent (up to 120 s) before it is typed.
DELIVERY_ALLOWANCE_SECONDS = 150.0
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


def until_token(text: str | None) -> str | None:
    if text is None:
        return None
    kind, _, token = text.partition(":")
    if kind != "output" or not token:
        raise WardianError("usage", f"invalid --until {text!r}", "Use --until output:TOKEN.", {"until": text})
    return token


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


class Question(NamedTuple):
    target: str
    message: str
    until_output: str | None = None
    timeout: float | None = None
    wait: bool = True
    asker_machine: str | None = None
    asker_name: str | None = None


def ask_answer(question: Question) -> dict[str, Any]:
    """What `wardian ask` prints (and the MCP tool `ask` answers): the request with its reply."""
    from wardian_host.cli.live import after_waiting, request

    if question.wait:
        answer = _awaited(question)
    else:
        answer = request("ask", question._asdict(), timeout=after_waiting(0, DELIVERY_ALLOWANCE_SECONDS))
    return {"schema": SCHEMA_VERSION} | answer


def _awaited(question: Question) -> dict[str, Any]:
    """An ask that waits for its reply: asked once; a host restart after the question was typed
    leaves the rest of the wait to the next host (`ask.wait`), which does not ask again."""
    from wardian_host.cli.host_return import across_restarts

    heard: dict[str, Any] = {}

    def again(heard: dict[str, Any], remaining: float | None) -> tuple[str, dict[str, Any]]:
        if "asked" not in heard:
            raise _question_unknown(question.target)
        return "ask.wait", heard["asked"] | {"timeout": remaining}

    first = ("ask", question._asdict())
    try:
        answer: dict[str, Any] = across_restarts(first, question.timeout, heard, again, DELIVERY_ALLOWANCE_SECONDS)
    except WardianError as error:
        if "asked" in heard and error.details.get("reason") == "host_gone":
            raise _still_pending(error, heard["asked"]["request_id"]) from None
        raise
    return answer


def _question_unknown(target: str) -> WardianError:
    return WardianError(
        "app_not_running",
        f"the host went away before it confirmed that the question reached {target}",
        f"It may have been typed: look at `wardian ask list --agent {target} --status pending` before asking again.",
        {"agent": target, "request_id": None, "reason": "host_gone"},
    )


def _still_pending(error: WardianError, request_id: str) -> WardianError:
    """No host came back in time: the request, typed once, is kept and still takes its reply."""
    return WardianError(
        error.code,
        error.message,
        f"The request stays pending and a reply lands once a host runs (`wardian host start`): "
        f"read it later with `wardian ask show {request_id}`.",
        error.details | {"request_id": request_id, "status": "pending"},
    )


@ask.command("show")
@click.argument("request_id", metavar="REQUEST-ID")
def show(request_id: str) -> None:
    """One request with its reply, from state.db (with or without a running host)."""
    write_json(request_answer(request_id))


def request_answer(request_id: str) -> dict[str, Any]:
    """What `wardian ask show` prints (and the MCP tool `show_request` answers)."""
    from wardian_core.db.connection import reading
    from wardian_core.db.requests import get_request

    with reading(paths.wardian_home()) as conn:
        record = get_request(conn, request_id)
    if record is None:
        raise WardianError(
            "not_found",
            f"no request {request_id}",
            "See the requests with `wardian ask list`.",
            {"request_id": request_id},
        )
    return {"schema": SCHEMA_VERSION, "request": record}


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
