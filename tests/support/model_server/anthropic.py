"""Anthropic Messages API (`POST /v1/messages`), streamed as SSE or answered as JSON (Claude Code)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from .turn import Answer, Conversation, DeclaredTool, UsageLimit, chunk_text, decide, is_context_wrapper
from .usage import REPORTED
from .wire import HttpReply, json_reply, sse_reply

_ids = itertools.count(1)
_USAGE = REPORTED.anthropic()
# The short names of a limit's window in its own `anthropic-ratelimit-unified-<window>-*` headers.
_WINDOWS = {"five_hour": "5h", "seven_day": "7d", "seven_day_opus": "7d_opus", "seven_day_sonnet": "7d_sonnet"}
LIMIT_MESSAGE = "This request would exceed your account's rate limit. Please try again later."


def conversation(body: dict[str, Any]) -> Conversation:
    # Claude Code 2.1 also sends `role: "system"` entries mid-conversation: skip them.
    messages = [m for m in body.get("messages", []) if m.get("role") in ("user", "assistant")]
    after_tool = bool(messages) and messages[-1]["role"] == "user" and _has_tool_result(messages[-1])
    prompt = ""
    for message in reversed(messages):
        if message["role"] != "user" or _has_tool_result(message):
            continue
        texts = [text for text in _texts(message) if not is_context_wrapper(text)]
        if texts:
            prompt = "\n".join(texts)
            break
    tools = tuple(
        DeclaredTool(tool["name"], tool.get("input_schema", {})) for tool in body.get("tools", []) if "name" in tool
    )
    return Conversation(prompt, after_tool, tools)


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [block.get("text", "") for block in content or [] if block.get("type") == "text"]


def _has_tool_result(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def messages(body: dict[str, Any]) -> HttpReply:
    answer = decide(conversation(body))
    if answer.error_status is not None:
        status = answer.error_status
        payload = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": f"mock error {status} requested"},
        }
        return json_reply(payload, status, kind="error")
    if answer.limit is not None:
        return usage_limit(answer.limit)
    model = body.get("model", "claude-mock")
    if body.get("stream"):
        return _stream(answer, model)
    return json_reply(_message(answer, model), kind=_kind(answer))


def usage_limit(limit: UsageLimit) -> HttpReply:
    """A plan's (or key's) limit as Anthropic answers it: 429 `rate_limit_error`, and the unified
    rate-limit headers Claude Code reads for which limit it is and when it resets (2.1.197,
    2.1.332: `anthropic-ratelimit-unified-status: rejected`, `-reset`, `-representative-claim`)."""
    payload = {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": LIMIT_MESSAGE},
        "request_id": f"req_mock{next(_ids):06d}",
    }
    reply = json_reply(payload, 429, kind="limit")
    reset = str(limit.resets_at)
    headers = {
        "retry-after": str(limit.seconds_left()),
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": reset,
        "anthropic-ratelimit-unified-representative-claim": limit.name,
        "anthropic-ratelimit-unified-fallback": "not_available",
    }
    window = _WINDOWS.get(limit.name)
    if window is not None:
        headers |= {
            f"anthropic-ratelimit-unified-{window}-status": "rejected",
            f"anthropic-ratelimit-unified-{window}-reset": reset,
            f"anthropic-ratelimit-unified-{window}-utilization": "1.0",
        }
    return dataclasses.replace(reply, headers=headers)


def count_tokens(body: dict[str, Any]) -> HttpReply:
    return json_reply({"input_tokens": 10})


def _kind(answer: Answer) -> str:
    return "tool_call" if answer.tool_call else "text"


def _blocks(answer: Answer) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if answer.text:
        blocks.append({"type": "text", "text": answer.text})
    if answer.tool_call:
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_mock{next(_ids):06d}",
                "name": answer.tool_call.name,
                "input": answer.tool_call.arguments,
            }
        )
    return blocks


def _stop_reason(answer: Answer) -> str:
    return "tool_use" if answer.tool_call else "end_turn"


def _message(answer: Answer, model: str) -> dict[str, Any]:
    return {
        "id": f"msg_mock{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(answer),
        "stop_reason": _stop_reason(answer),
        "stop_sequence": None,
        "usage": dict(_USAGE),
    }


def _stream(answer: Answer, model: str) -> HttpReply:
    start = _message(answer, model)
    start.update(content=[], stop_reason=None, usage=dict(_USAGE, output_tokens=1))
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(_blocks(answer)):
        if block["type"] == "text":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            events.extend(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
                )
                for piece in chunk_text(block["text"])
            )
        else:
            opening = dict(block, input={})
            events.append(
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening})
            )
            partial = answer.tool_call.arguments_json() if answer.tool_call else "{}"
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": partial},
                    },
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(answer), "stop_sequence": None},
                "usage": {"output_tokens": REPORTED.output},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return sse_reply(events, kind=_kind(answer))
