"""What a real CLI does with Wardian's MCP server, through the real `wardian` only: its model
calls `list_agents`, the CLI runs it without asking a person, and the answer reaches the model;
and an ask is answered by the model calling `reply`. Shared by each provider's real-CLI test."""

import json
from collections.abc import Iterator
from typing import Any

ANSWER = "forty-two"


def strings(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON document (a tool result sits in a different place in each protocol)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def _bodies(requests: list[Any]) -> Iterator[dict[str, Any]]:
    for request in requests:
        try:
            body = json.loads(request.body)
        except ValueError:
            continue
        if isinstance(body, dict):
            yield body


def listed_to_the_model(requests: list[Any], name: str) -> bool:
    """A request carried `list_agents`' answer back to the model: the JSON `wardian agent list` prints."""
    # Some CLIs pass the JSON on compacted: compare without the spaces.
    wanted = f'"name":"{name}"'
    return any(
        '"agents"' in text and wanted in text.replace(" ", "") for body in _bodies(requests) for text in strings(body)
    )


def offered(requests: list[Any], tool: str) -> bool:
    """Some request declared Wardian's `tool` to the model, under its CLI's prefix or, as Codex
    0.171 does, by its own name inside a namespace of the server's (`mcp__wardian`)."""
    return any(
        text == tool or text.endswith("_" + tool)
        for body in _bodies(requests)
        for text in strings(body.get("tools") or [])
    )


def offered_names(requests: list[Any]) -> list[str]:
    """The names of Wardian's tools the requests declared: what a failure shows."""
    return sorted(
        {text for body in _bodies(requests) for text in strings(body.get("tools") or []) if "wardian" in text}
    )


def statuses_seen(wardian: Any, name: str) -> list[str]:
    events = wardian("agent", "watch", name, "--since", "0")["watch"]["events"]
    return [str(event.get("status") or event.get("to") or "") for event in events]


def assert_the_agent_uses_wardians_tools(wardian: Any, name: str, spawn_options: tuple[str, ...] = ()) -> None:
    """`spawn_options`: more of `agent spawn`'s, for a caller whose next checks need the same agent
    spawned so (OpenCode's `shell_permission=ask`): no setting may take Wardian's tools away."""
    wardian.spawn(name, *spawn_options)
    wardian.wait(name, "idle", "ready", timeout="90s")
    # `idle` means ready, Wardian's tools included: the very first prompt after it gets them.
    shown = wardian("agent", "show", name, "--fields", "mcp_tools,status_evidence")["agent"]
    assert shown["mcp_tools"] == "connected", shown  # its evidence says why not (`mcp_why`)
    wardian("send", 'use wardian MOCK_MCP:list_agents {"scope": "all"}', "--to", name)
    wardian.wait(name, "idle", "turn_completed", timeout="90s")

    assert offered(wardian.cli.server.requests, "list_agents"), offered_names(wardian.cli.server.requests)
    assert listed_to_the_model(wardian.cli.server.requests, name), offered_names(wardian.cli.server.requests)
    assert "action_required" not in statuses_seen(wardian, name)  # no person was asked

    arguments = json.dumps({"request_id": "ASK_REQUEST_ID", "status": "done", "message": ANSWER})
    question = f"answer through the tool MOCK_MCP:reply {arguments}"
    answer = wardian("ask", name, question, "--timeout", "90s", timeout=150)

    assert answer["status"] == "done", answer
    reply = answer["reply"]
    assert (reply["status"], reply["body"], reply["source"], reply["caller_agent"]) == ("done", ANSWER, "agent", name)
    wardian.cli.assert_only_model_server_was_called()


def assert_a_headless_run_uses_wardians_tools(wardian: Any, name: str) -> None:
    """`wardian agent run`: the provider once, headless, its model calling `list_agents` unasked."""
    wardian.spawn(name)
    wardian.wait(name, "idle", "ready", timeout="90s")
    run = wardian.run_record(wardian.run(name, 'use wardian MOCK_MCP:list_agents {"scope": "all"}'))

    assert run["status"] != "error", run
    assert listed_to_the_model(wardian.cli.server.requests, name), offered_names(wardian.cli.server.requests)
