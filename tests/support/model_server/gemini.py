"""Gemini `generateContent` and `streamGenerateContent?alt=sse` (Gemini CLI).

Gemini CLI 0.61 first asks its model router with a JSON-schema `generateContent`; that call is
answered with an object that satisfies the schema, never with a tool call.
"""

from __future__ import annotations

import json
from typing import Any

from .turn import Conversation, DeclaredTool, chunk_text, decide, is_context_wrapper
from .usage import REPORTED
from .wire import HttpReply, json_reply, sse_reply

_USAGE = REPORTED.gemini()


def conversation(body: dict[str, Any]) -> Conversation:
    contents = body.get("contents", [])
    after_tool = bool(contents) and any("functionResponse" in part for part in contents[-1].get("parts", []))
    prompt = ""
    for content in reversed(contents):
        if content.get("role", "user") != "user":
            continue
        texts = [p["text"] for p in content.get("parts", []) if "text" in p and not is_context_wrapper(p["text"])]
        if texts:
            prompt = "\n".join(texts)
            break
    tools = tuple(
        DeclaredTool(
            declaration["name"], declaration.get("parametersJsonSchema") or declaration.get("parameters") or {}
        )
        for tool in body.get("tools", [])
        for declaration in tool.get("functionDeclarations", [])
    )
    return Conversation(prompt, after_tool, tools)


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    config = body.get("generationConfig", {}) or {}
    return config.get("responseJsonSchema") or config.get("responseSchema")


def generate_content(body: dict[str, Any], model: str, stream: bool) -> HttpReply:
    schema = _schema(body)
    if schema is not None:
        text = json.dumps(example_for_schema(schema))
        return _reply([{"text": text}], model, stream, kind="schema")
    answer = decide(conversation(body))
    if answer.error_status is not None:
        status = answer.error_status
        payload = {
            "error": {
                "code": status,
                "message": f"mock error {status} requested",
                "status": _STATUS_NAMES.get(status, "UNKNOWN"),
            }
        }
        return json_reply(payload, status, kind="error")
    kind = "tool_call" if answer.tool_call else "text"
    if answer.tool_call:
        parts = [{"functionCall": {"name": answer.tool_call.name, "args": answer.tool_call.arguments}}]
        return _reply(parts, model, stream, kind)
    return _reply([{"text": answer.text or ""}], model, stream, kind)


_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def count_tokens(body: dict[str, Any]) -> HttpReply:
    return json_reply({"totalTokens": 10})


def _response(parts: list[dict[str, Any]], model: str, finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": _USAGE, "modelVersion": model}


def _reply(parts: list[dict[str, Any]], model: str, stream: bool, kind: str) -> HttpReply:
    if not stream:
        return json_reply(_response(parts, model, "STOP"), kind=kind)
    if len(parts) == 1 and "text" in parts[0]:
        pieces = chunk_text(parts[0]["text"])
        events: list[tuple[str | None, Any]] = [
            (None, _response([{"text": piece}], model, "STOP" if index == len(pieces) - 1 else None))
            for index, piece in enumerate(pieces)
        ]
    else:
        events = [(None, _response(parts, model, "STOP"))]
    return sse_reply(events, kind=kind)


def example_for_schema(schema: dict[str, Any]) -> Any:
    """A small value that validates against `schema` (enough for Gemini's router and checks)."""
    if "enum" in schema:
        # The next-speaker check asks who talks next; "user" ends the turn instead of looping.
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    for combinator in ("anyOf", "oneOf"):
        if schema.get(combinator):
            return example_for_schema(schema[combinator][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    kind = str(kind).lower()
    if kind == "object":
        properties = schema.get("properties", {})
        required = schema.get("required", list(properties))
        return {name: example_for_schema(properties[name]) for name in required if name in properties}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        # The router's `complexity_score` must be 1..100 (0.61.0), checked after the call though
        # its schema names no bounds: 1 where the schema says nothing.
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "mock"
