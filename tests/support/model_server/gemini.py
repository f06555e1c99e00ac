"""Gemini `generateContent` and `streamGenerateContent?alt=sse` (Gemini CLI).

Gemini CLI 0.61 first asks its model router with a JSON-schema `generateContent`; that call is
answered with an object that satisfies the schema, never with a tool call (nor with a limit: a
plan's quota is per model, and the router's small model is not the one that ran out).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from .turn import Conversation, DeclaredTool, UsageLimit, chunk_text, decide, is_context_wrapper
from .usage import REPORTED
from .wire import HttpReply, json_reply, sse_reply

_USAGE = REPORTED.gemini()
# Where Google's error details say a Code Assist (signed-in plan) quota lives; Gemini CLI 0.61.0
# trusts an ErrorInfo's reason only from these domains (`isCloudCodeDomain`).
CODE_ASSIST_DOMAIN = "cloudcode-pa.googleapis.com"
_RPC = "type.googleapis.com/google.rpc."


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
    if answer.limit is not None:
        return usage_limit(answer.limit, model)
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


def usage_limit(limit: UsageLimit, model: str) -> HttpReply:
    """A quota run out, as Google answers it: 429 `RESOURCE_EXHAUSTED` with `google.rpc` details
    and a `RetryInfo` giving the time left. `limit.name` in capitals is an `ErrorInfo` reason from
    Code Assist, the signed-in plan's backend (`QUOTA_EXHAUSTED`: Gemini CLI 0.61.0 calls it
    terminal and shows "Usage limit reached … Access resets at <now + retryDelay>"); otherwise it
    is a `QuotaFailure` quota id, the Gemini API key's (`GenerateRequestsPerDayPerProjectPerModel`:
    terminal, "Usage limit reached" with no reset; a `PerMinute` one it retries by itself)."""
    left = limit.retry_after_seconds()
    details: list[dict[str, Any]] = []
    if limit.name.isupper():
        metadata = {"model": model, "quotaResetDelay": f"{left}s", "quotaResetTimeStamp": _rfc3339(limit.resets_at)}
        details.append(
            {"@type": _RPC + "ErrorInfo", "reason": limit.name, "domain": CODE_ASSIST_DOMAIN, "metadata": metadata}
        )
        message = f"You have reached your quota for {model}. Your quota will reset after {left}s."
    else:
        violation = {
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
            "quotaId": limit.name,
            "quotaDimensions": {"location": "global", "model": model},
            "quotaValue": "1000",
        }
        details.append({"@type": _RPC + "QuotaFailure", "violations": [violation]})
        message = "You exceeded your current quota, please check your plan and billing details."
    details.append({"@type": _RPC + "RetryInfo", "retryDelay": f"{left}s"})
    payload = {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": details}}
    return json_reply(payload, 429, kind="limit")


def _rfc3339(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
