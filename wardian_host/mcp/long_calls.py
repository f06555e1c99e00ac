"""Calls that wait (an ask for its reply, a wait for a status) inside an MCP client's time limit.

A client gives up on a tool call after its own limit (Codex 0.169: 60 s by default, the
smallest of the four CLIs), and a call it gave up on tells the model nothing. So a waiting
call is cut at the call budget (WARDIAN_MCP_CALL_SECONDS, 50 s unless set) and then answers
what is known — the request id, or the agent as it is — with the tool to call next, as the
MCP guidance for long operations says. A limit the caller gave that is shorter than the
budget ends the call as on the CLI: the same error envelope.
"""

import os
from typing import Any

from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_host.answers.ask import Question

BUDGET_VARIABLE = "WARDIAN_MCP_CALL_SECONDS"
DEFAULT_BUDGET_SECONDS = 50.0


def call_budget() -> float:
    text = os.environ.get(BUDGET_VARIABLE, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_BUDGET_SECONDS
    except ValueError:
        return DEFAULT_BUDGET_SECONDS
    return seconds if seconds > 0 else DEFAULT_BUDGET_SECONDS


def within_budget(timeout: float | None) -> tuple[float, bool]:
    """The limit this call waits for, and whether it is the budget (not the caller's own, shorter one)."""
    budget = call_budget()
    if timeout is not None and timeout <= budget:
        return timeout, False
    return budget, True


def ask_within_budget(question: Question) -> dict[str, Any]:
    from wardian_host.answers.ask import ask_answer

    limit, cut = within_budget(question.timeout)
    if not question.wait:
        return ask_answer(question)
    try:
        return ask_answer(question._replace(timeout=limit))
    except WardianError as error:
        if not cut or error.code != "watch_timeout" or "request_id" not in error.details:
            raise
        return _pending_request(error.details["request_id"], question.target, limit)


def _pending_request(request_id: str, agent: str, waited: float) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "request_id": request_id,
        "agent": agent,
        "status": "pending",
        "waited_seconds": waited,
        "next": {
            "tool": "show_request",
            "arguments": {"request_id": request_id},
            "why": f"{agent} has not replied within this call's {waited:g} s; the request stays open. "
            f"Call show_request later (or wait_for_agent {agent} until idle first) to read its reply.",
        },
    }


def wait_within_budget(agent: str, until: str, timeout: float | None, next_change: bool) -> dict[str, Any]:
    from wardian_host.answers.lifecycle import wait_answer

    limit, cut = within_budget(timeout)
    try:
        return wait_answer(agent, until, limit, next_change)
    except WardianError as error:
        if not cut or error.code != "wait_timeout":
            raise
        left = None if timeout is None else timeout - limit
        return _still_waiting(agent, until, limit, left, error.details, next_change)


def _still_waiting(
    agent: str, until: str, waited: float, left: float | None, details: dict[str, Any], next_change: bool
) -> dict[str, Any]:
    arguments: dict[str, Any] = {"agent": agent, "until": until}
    # Still in that status after --next: only a fresh arrival ends the wait. Otherwise the next
    # call accepts the status as it finds it, so an arrival between the two calls is not missed.
    if next_change and details.get("status") == until:
        arguments["next"] = True
    if left is not None:
        arguments["timeout"] = f"{left:g}s"
    return {
        "schema": SCHEMA_VERSION,
        "agent": agent,
        "reached": False,
        "status": details.get("status"),
        "waited_seconds": waited,
        "next": {
            "tool": "wait_for_agent",
            "arguments": arguments,
            "why": f"{agent} did not become {until} within this call's {waited:g} s; call again to keep waiting.",
        },
    }
