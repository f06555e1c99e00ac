"""OpenAI Chat Completions (`POST /v1/chat/completions`), SSE or JSON (OpenCode)."""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Any

from .turn import Answer, Conversation, DeclaredTool, UsageLimit, chunk_text, decide, is_context_wrapper
from .usage import REPORTED
from .wire import HttpReply, json_reply, openai_error, sse_reply

_ids = itertools.count(1)
# OpenAI's names of a rate limit's window in its message, by the limit's type (the error's `type`).
_LIMIT_WINDOWS = {"requests": "requests per day (RPD)", "tokens": "tokens per day (TPD)"}
LIMIT_ALLOWANCE = 10000


def conversation(body: dict[str, Any]) -> Conversation:
    messages = body.get("messages", [])
    after_tool = bool(messages) and messages[-1].get("role") == "tool"
    prompt = ""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        texts = [text for text in _texts(message) if not is_context_wrapper(text)]
        if texts:
            prompt = "\n".join(texts)
            break
    tools = tuple(
        DeclaredTool(tool["function"]["name"], tool["function"].get("parameters", {}) or {})
        for tool in body.get("tools", [])
        if tool.get("type") == "function"
    )
    return Conversation(prompt, after_tool, tools)


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [part.get("text", "") for part in content or [] if part.get("type") == "text"]


def chat_completions(body: dict[str, Any]) -> HttpReply:
    answer = decide(conversation(body))
    if answer.error_status is not None:
        return openai_error(answer.error_status)
    model = body.get("model", "mock-model")
    if answer.limit is not None:
        return usage_limit(answer.limit, model)
    if body.get("stream"):
        return _stream(answer, model)
    return json_reply(_completion(answer, model), kind=_kind(answer))


def usage_limit(limit: UsageLimit, model: str) -> HttpReply:
    """A key's rate limit as OpenAI answers it: 429 `rate_limit_exceeded`, the error's type the
    limit's (`limit.name`: `requests`, `tokens`), its message saying when to try again, and the
    headers `retry-after` (seconds) and `x-ratelimit-{limit,remaining,reset}-<type>` (the reset as
    a duration, `1h2m3s`). OpenCode 1.18.33's retry reads `retry-after-ms`, then `retry-after`."""
    left = limit.seconds_left()
    window = _LIMIT_WINDOWS.get(limit.name, f"{limit.name} per min")
    message = (
        f"Rate limit reached for {model} in organization org-mock on {window}: Limit {LIMIT_ALLOWANCE}, "
        f"Used {LIMIT_ALLOWANCE}, Requested 1. Please try again in {duration(left)}. "
        "Visit https://platform.openai.com/account/rate-limits to learn more."
    )
    payload = {"error": {"message": message, "type": limit.name, "param": None, "code": "rate_limit_exceeded"}}
    headers = {
        "retry-after": str(limit.retry_after_seconds()),
        f"x-ratelimit-limit-{limit.name}": str(LIMIT_ALLOWANCE),
        f"x-ratelimit-remaining-{limit.name}": "0",
        f"x-ratelimit-reset-{limit.name}": duration(left),
    }
    return dataclasses.replace(json_reply(payload, 429, kind="limit"), headers=headers)


def duration(seconds: int) -> str:
    """Seconds as OpenAI's rate-limit headers and messages write a time: `6m0s`, `1h2m3s`, `9s`."""
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{seconds}s"
    return f"{minutes}m{seconds}s" if minutes else f"{seconds}s"


def _kind(answer: Answer) -> str:
    return "tool_call" if answer.tool_call else "text"


def _tool_calls(answer: Answer) -> list[dict[str, Any]]:
    if not answer.tool_call:
        return []
    return [
        {
            "index": 0,
            "id": f"call_mock{next(_ids):06d}",
            "type": "function",
            "function": {"name": answer.tool_call.name, "arguments": answer.tool_call.arguments_json()},
        }
    ]


def _finish_reason(answer: Answer) -> str:
    return "tool_calls" if answer.tool_call else "stop"


_USAGE = REPORTED.openai_chat()


def _completion(answer: Answer, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if answer.tool_call:
        message["tool_calls"] = _tool_calls(answer)
    return {
        "id": f"chatcmpl-mock{next(_ids):06d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(answer)}],
        "usage": _USAGE,
    }


def _stream(answer: Answer, model: str) -> HttpReply:
    completion_id = f"chatcmpl-mock{next(_ids):06d}"
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events: list[tuple[str | None, Any]] = [chunk({"role": "assistant", "content": ""})]
    # With a tool call the text is left out: OpenCode 1.18 shows it as a separate message.
    if answer.text and not answer.tool_call:
        events += [chunk({"content": piece}) for piece in chunk_text(answer.text)]
    if answer.tool_call:
        events.append(chunk({"tool_calls": _tool_calls(answer)}))
    events.append(chunk({}, _finish_reason(answer)))
    events.append(
        (
            None,
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": _USAGE,
            },
        )
    )
    return sse_reply(events, kind=_kind(answer), done_marker=True)
