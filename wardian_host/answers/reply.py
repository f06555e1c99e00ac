"""What `wardian reply` answers (and the MCP tool `reply`): the reply to a `wardian ask` request
the host took, given again to the next host when it met none between two."""

from typing import Any

from wardian_core.asks import REPLY_BODY_MAX_CHARS
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_host.answers.connection import request


def reply_answer(request_id: str, body: str, status: str) -> dict[str, Any]:
    """What `wardian reply` prints (and the MCP tool `reply` answers): the reply the host took."""
    if len(body) > REPLY_BODY_MAX_CHARS:
        raise WardianError(
            "message_too_large",
            f"the reply is {len(body)} characters; a reply holds at most {REPLY_BODY_MAX_CHARS}",
            "Write the long answer to a file and reply with its path.",
            {"size_chars": len(body), "limit_chars": REPLY_BODY_MAX_CHARS},
        )
    params = {"request_id": request_id, "status": status, "body": body}
    try:
        answer: dict[str, Any] = request("reply", params)
    except WardianError as error:
        answer = _to_next_host(error, params)
    return {"schema": SCHEMA_VERSION} | answer


def _to_next_host(error: WardianError, params: dict[str, Any]) -> dict[str, Any]:
    """A reply given while the host restarts (or after it crashed, its agents going on) waits for
    the next host, so it is not lost. Only one no host took: one a host took and then lost may be
    recorded, and giving it again would be a duplicate."""
    from wardian_host.answers.host_return import await_next_host, between_hosts

    if not between_hosts(error):
        raise error
    await_next_host(None, "give the reply again")
    answer: dict[str, Any] = request("reply", params)
    return answer
