"""What `agent watch` answers without --follow (and the MCP tool `watch_output`): what an agent
printed and how its status moved since a cursor, waited for with --until."""

from typing import Any

from wardian_core.errors import WardianError
from wardian_core.statuses import STATUSES
from wardian_host.answers.connection import LIFECYCLE_SECONDS, after_waiting, request
from wardian_host.answers.records import envelope


def until_params(text: str | None) -> dict[str, str | None]:
    if text is None:
        return {}
    kind, _, value = text.partition(":")
    if kind == "output" and value:
        return {"until_output": value}
    if kind == "status" and value in STATUSES:
        return {"until_status": value}
    raise WardianError(
        "usage", f"invalid --until {text!r}", "Use --until output:TEXT or --until status:STATUS.", {"until": text}
    )


def watch_answer(params: dict[str, Any]) -> dict[str, Any]:
    """What `agent watch` without --follow prints (and the MCP tool `watch_output` answers)."""
    if "until_output" not in params and "until_status" not in params:
        return envelope("watch", request("agent.watch", params, timeout=after_waiting(params.get("timeout"))))
    from wardian_host.answers.host_return import across_restarts

    def again(heard: dict[str, Any], remaining: float | None) -> tuple[str, dict[str, Any]]:
        return "agent.watch", params | {"timeout": remaining, "output_from": heard.get("watching_from")}

    page = across_restarts(("agent.watch", params), params.get("timeout"), {}, again, LIFECYCLE_SECONDS / 2)
    return envelope("watch", page)
