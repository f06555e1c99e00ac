"""`wardian send`: type a message into agents, or answer an approval."""

from typing import Any, NamedTuple

import click

from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.fields import VERBOSE_FIELDS, live_agent
from wardian_core.statuses import STATUSES
from wardian_host.cli.live import LIFECYCLE_SECONDS, after_waiting, request
from wardian_host.cli.message_source import given_sources, message_options, read_message
from wardian_host.cli.option_checks import not_empty
from wardian_host.cli.render import write_json

# The host answers a send once each prompt is confirmed: up to two turn-start waits (a second
# submit) of at most wardian_core.provider_models.TURN_START_LIMIT_SECONDS, not imported on this path.
CONFIRMING_SECONDS = 60.0


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


class SendOrder(NamedTuple):
    to: str
    text: str | None
    wait_until: str | None = None
    timeout: float | None = None
    approval: str | None = None
    raw: bool = False


def send_answer(order: SendOrder) -> dict[str, Any]:
    """What `wardian send` prints (and the MCP tool `send` answers): the host's account of each delivery."""
    params = order._asdict()
    if order.wait_until:
        answer = _sent_and_waited(order)
    else:
        answering = after_waiting(order.timeout or 0, unset=CONFIRMING_SECONDS + LIFECYCLE_SECONDS / 2)
        answer = request("send", params, timeout=answering)
    if answer.get("agent") is not None:
        answer["agent"] = live_agent(answer["agent"], VERBOSE_FIELDS + ("status_evidence",))
    return {"schema": SCHEMA_VERSION} | answer


def sent_to_each(order: SendOrder, targets: tuple[str, ...]) -> dict[str, Any]:
    """`send --to A --to B`: the text sent to each target in turn, one answer listing every
    delivery. A target that fails does not stop the others; the send then fails as a send to a
    class does, with every target's result in its details, so a script sees who got the text."""
    results: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    failures: list[WardianError] = []
    for target in targets:
        try:
            answer = send_answer(order._replace(to=target))
        except WardianError as error:
            failures.append(error)
            results += error.details.get("results") or [_failed(target, error)]
            continue
        answers.append(answer)
        results += answer["results"]
    sender = answers[0] if answers else failures[0].details
    combined = {"results": results, "sender": sender.get("sender"), "sender_verified": sender.get("sender_verified")}
    if failures:
        raise _not_every_target(failures[0], combined, len(targets))
    return {"schema": SCHEMA_VERSION} | combined


def _failed(target: str, error: WardianError) -> dict[str, Any]:
    return {"agent": target, "result": "failed", "code": error.code, "reason": error.message}


def _not_every_target(first: WardianError, combined: dict[str, Any], count: int) -> WardianError:
    reached = [result["agent"] for result in combined["results"] if result.get("result") == "delivered"]
    received = f"{', '.join(reached)} received it (see details.results). " if reached else ""
    return WardianError(
        first.code,
        f"not every target received the text: {first.message}",
        f"{first.hint} {received}Send again only to the targets whose result is not `delivered`.",
        combined | {"delivered": False, "targets": count},
    )


def _sent_and_waited(order: SendOrder) -> dict[str, Any]:
    """`send --wait-until`: delivered once, then waited for; a host restart after the delivery
    leaves the wait to the next host, which is not asked to deliver again."""
    from wardian_host.cli.host_return import across_restarts

    heard: dict[str, Any] = {}

    def again(heard: dict[str, Any], remaining: float | None) -> tuple[str, dict[str, Any]]:
        if "delivered" not in heard:
            raise delivery_unknown(order.to)
        wait = {"target": order.to, "until": order.wait_until, "timeout": remaining, "next": True}
        return "agent.wait", wait | {"arrived_after": heard["waiting_after"]}

    try:
        answer: dict[str, Any] = across_restarts(
            ("send", order._asdict()), order.timeout, heard, again, CONFIRMING_SECONDS + LIFECYCLE_SECONDS / 2
        )
    except WardianError as error:
        if "delivered" in heard:  # the wait failed, not the delivery: a retrying script must not send again
            error.details = error.details | {"delivered": True, "delivery": heard["delivered"].get("delivery")}
        raise
    # The first host's answer has the deliveries; the next host's is the agent its wait ended with.
    return answer if "results" in answer else heard["delivered"] | {"agent": answer}


def delivery_unknown(to: str) -> WardianError:
    return WardianError(
        "app_not_running",
        f"the host went away before it confirmed the delivery to {to}",
        f"The text may have been typed: look at `wardian agent watch {to}` before sending it again.",
        {"to": to, "delivered": None, "reason": "host_gone"},
    )
