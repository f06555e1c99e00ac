"""What `wardian send` answers (and the MCP tool `send`): the text typed into agents, or an
approval answered, with the host's account of each delivery."""

from typing import Any, NamedTuple

from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.fields import VERBOSE_FIELDS, live_agent
from wardian_host.answers.connection import LIFECYCLE_SECONDS, after_waiting, request

# The host answers a send once each prompt is confirmed: up to two turn-start waits (a second
# submit) of at most wardian_core.provider_models.TURN_START_LIMIT_SECONDS, not imported on this path.
CONFIRMING_SECONDS = 60.0


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
        answer["agent"] = live_agent(answer["agent"], (*VERBOSE_FIELDS, "status_evidence"))
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
    from wardian_host.answers.host_return import across_restarts

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
