"""OpenAI Responses API (`POST /v1/responses`), streamed as SSE (Codex CLI)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from .turn import Answer, Conversation, DeclaredTool, UsageLimit, chunk_text, decide, is_context_wrapper
from .usage import RATE_LIMITS, REPORTED, rate_limit_headers
from .wire import HttpReply, json_reply, openai_error, sse_reply

_ids = itertools.count(1)
# The plan the ChatGPT backend names in a usage-limit answer: Codex words its message by it.
LIMIT_PLAN = "plus"
LIMIT_MESSAGE = "The usage limit has been reached"
_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def conversation(body: dict[str, Any]) -> Conversation:
    items = body.get("input", [])
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    after_tool = bool(items) and items[-1].get("type") in _TOOL_OUTPUTS
    prompt = ""
    for item in reversed(items):
        if item.get("role") != "user":
            continue
        texts = [text for text in _texts(item) if not is_context_wrapper(text)]
        if texts:
            prompt = "\n".join(texts)
            break
    return Conversation(prompt, after_tool, tuple(_declared(body.get("tools", []))))


def _declared(tools: list[dict[str, Any]], namespace: str | None = None) -> list[DeclaredTool]:
    """The function tools, those of a namespace too (Codex 0.169 puts each MCP server's in one)."""
    declared = []
    for tool in tools:
        if tool.get("type") == "namespace":
            declared += _declared(tool.get("tools") or [], tool.get("name"))
        elif tool.get("type") == "function" and "name" in tool:
            declared.append(DeclaredTool(tool["name"], tool.get("parameters", {}) or {}, namespace))
    return declared


def _texts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [part.get("text", "") for part in content or [] if part.get("type") in ("input_text", "text")]


def responses(body: dict[str, Any]) -> HttpReply:
    answer = decide(conversation(body))
    if answer.error_status is not None:
        return openai_error(answer.error_status)
    if answer.limit is not None:
        return usage_limit(answer.limit)
    return _stream(answer, body.get("model", "mock-model"))


def usage_limit(limit: UsageLimit) -> HttpReply:
    """A plan's limit as the ChatGPT backend answers it: 429, an error of type
    `usage_limit_reached` with the plan and the reset (epoch seconds), and the `x-codex-*`
    rate-limit headers with the window that ran out (`limit.name`: `primary`, the 5-hour one, or
    `secondary`, the weekly one) at 100% until the reset. Codex (0.171.0's source,
    `codex-api` `api_bridge`) reads exactly these: the body's type, `plan_type` and `resets_at`,
    and the windows of the limit `x-codex-active-limit` names."""
    payload = {
        "error": {
            "type": "usage_limit_reached",
            "message": LIMIT_MESSAGE,
            "plan_type": LIMIT_PLAN,
            "resets_at": limit.resets_at,
            "resets_in_seconds": limit.seconds_left(),
        }
    }
    headers = {"x-codex-active-limit": "codex"}
    for window in RATE_LIMITS:
        if window.name == limit.name:
            window = dataclasses.replace(window, used_percent=100.0, resets_at=limit.resets_at)
        headers |= window.codex_headers()
    return dataclasses.replace(json_reply(payload, 429, kind="limit"), headers=headers)


def _stream(answer: Answer, model: str) -> HttpReply:
    response_id = f"resp_mock{next(_ids):06d}"
    events: list[tuple[str | None, Any]] = [
        (
            "response.created",
            {"type": "response.created", "response": {"id": response_id, "model": model, "status": "in_progress"}},
        ),
    ]
    output: list[dict[str, Any]] = []
    if answer.text and not answer.tool_call:
        item_id = f"msg_mock{next(_ids):06d}"
        index = len(output)
        events.append(
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {
                        "type": "message",
                        "id": item_id,
                        "role": "assistant",
                        "status": "in_progress",
                        "content": [],
                    },
                },
            )
        )
        events.extend(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": index,
                    "content_index": 0,
                    "delta": piece,
                },
            )
            for piece in chunk_text(answer.text)
        )
        item: dict[str, Any] = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": answer.text, "annotations": []}],
        }
        events.append(
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item})
        )
        output.append(item)
    if answer.tool_call:
        item = {
            "type": "function_call",
            "id": f"fc_mock{next(_ids):06d}",
            "status": "completed",
            "call_id": f"call_mock{next(_ids):06d}",
            "name": answer.tool_call.name,
            "arguments": answer.tool_call.arguments_json(),
        } | ({"namespace": answer.tool_call.namespace} if answer.tool_call.namespace else {})
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": len(output), "item": item},
            )
        )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": len(output), "item": item},
            )
        )
        output.append(item)
    usage = REPORTED.openai_responses()
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": response_id,
                    "model": model,
                    "status": "completed",
                    "output": output,
                    "usage": usage,
                },
            },
        )
    )
    reply = sse_reply(events, kind="tool_call" if answer.tool_call else "text")
    # The rate-limit windows a plan's backend reports on every response (Codex shows them).
    return dataclasses.replace(reply, headers=reply.headers | rate_limit_headers())
