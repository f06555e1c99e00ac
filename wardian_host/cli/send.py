"""`wardian send`: type a message into agents, or answer an approval."""

import click

from wardian_core.durations import parse_duration
from wardian_core.errors import WardianError
from wardian_core.statuses import STATUSES
from wardian_host.answers.messages import given_sources, read_message
from wardian_host.answers.send import SendOrder, send_answer, sent_to_each
from wardian_host.cli.message_source import message_options
from wardian_host.cli.option_checks import not_empty
from wardian_host.cli.render import write_json


def _body(message: str | None, from_stdin: bool, file: str | None, approval: str | None) -> str | None:
    if approval is not None:
        if given_sources(message, from_stdin, file):
            raise WardianError("usage", "--approval takes no message", "Send the approval alone.")
        return None
    return read_message(message, from_stdin, file)


def given_targets(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """Each `--to` not empty, each named once: a target given twice gets the text once."""
    for value in values:
        not_empty(ctx, param, value)
    return tuple(dict.fromkeys(values))


def _one_target_to_wait_for(targets: tuple[str, ...], wait_until: str | None, approval: str | None) -> None:
    """A wait or an approval is about one agent: with several `--to` it could not say whose."""
    flag = "--wait-until" if wait_until else "--approval" if approval else None
    if flag is not None and len(targets) > 1:
        raise WardianError(
            "usage",
            f"{flag} needs exactly one target, and --to was given {len(targets)} times",
            "Answer each agent's dialog with its own `wardian send --approval … --to NAME`."
            if approval
            else "Send to one agent by name or uuid, or send to each without --wait-until and wait "
            "for each with `wardian agent wait NAME --until STATUS --next`.",
            {"to": list(targets)},
        )


@click.command("send")
@click.argument("message", required=False)
@click.option(
    "--to",
    "targets",
    required=True,
    multiple=True,
    callback=given_targets,
    metavar="TARGET",
    help="NAME, UUID, class:<Class> or all; repeat it to send to each.",
)
@message_options
@click.option("--wait-until", type=click.Choice(STATUSES), help="Then wait for this status's next arrival.")
@click.option("--timeout", "timeout_text", metavar="DUR", help="Limit for --wait-until / --approval (30s, 10m).")
@click.option("--approval", type=click.Choice(["accept", "reject"]), help="Answer a pending approval.")
@click.option("--raw", is_flag=True, help="Type the text exactly as given: no [from <agent>] tag.")
@click.option("--thread", metavar="ID", help="Reserved: threaded sends are not supported yet.")
def send(
    message: str | None,
    targets: tuple[str, ...],
    from_stdin: bool,
    file: str | None,
    wait_until: str | None,
    timeout_text: str | None,
    approval: str | None,
    raw: bool,
    thread: str | None,
) -> None:
    """Type MESSAGE into the target agents' terminals, as a person would."""
    if thread is not None:
        raise WardianError("not_supported", "threaded sends are not supported yet", "Send without --thread.")
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    _one_target_to_wait_for(targets, wait_until, approval)
    text = _body(message, from_stdin, file, approval)
    order = SendOrder(targets[0], text, wait_until, timeout, approval, raw)
    write_json(send_answer(order) if len(targets) == 1 else sent_to_each(order, targets))
