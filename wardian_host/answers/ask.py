"""What `wardian ask` answers (and the MCP tools `ask` and `show_request`): a question typed
into an agent, its request, and the reply once the agent gives it."""

from typing import Any, NamedTuple

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION, WardianError

# How long past its own limit the CLI waits for the host's answer: the question may first
# wait for a starting agent (up to 120 s) before it is typed.
DELIVERY_ALLOWANCE_SECONDS = 150.0


def until_token(text: str | None) -> str | None:
    if text is None:
        return None
    kind, _, token = text.partition(":")
    if kind != "output" or not token:
        raise WardianError("usage", f"invalid --until {text!r}", "Use --until output:TOKEN.", {"until": text})
    return token


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
    from wardian_host.answers.connection import after_waiting, request

    if question.wait:
        answer = _awaited(question)
    else:
        answer = request("ask", question._asdict(), timeout=after_waiting(0, DELIVERY_ALLOWANCE_SECONDS))
    return {"schema": SCHEMA_VERSION} | answer


def _awaited(question: Question) -> dict[str, Any]:
    """An ask that waits for its reply: asked once; a host restart after the question was typed
    leaves the rest of the wait to the next host (`ask.wait`), which does not ask again."""
    from wardian_host.answers.host_return import across_restarts

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
