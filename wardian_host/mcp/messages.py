"""The JSON-RPC messages both the host's session and the relay write: plain json, so the relay
(standard library only) and the host build them the same way."""

import json
from typing import Any

from wardian_core.errors import WardianError

Message = dict[str, Any]


def tool_result(answer: dict[str, Any], is_error: bool = False) -> dict[str, Any]:
    """A `tools/call` result: the answer as JSON text (for clients that read text) and as
    structured content; a failure is a tool error the model reads, never a protocol error."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(answer, indent=2)}],
        "structuredContent": answer,
    }
    if is_error:
        result["isError"] = True
    return result


def failed_call(error: WardianError) -> dict[str, Any]:
    return tool_result(error.envelope(), is_error=True)


def error_message(request_id: Any, code: int, message: str) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def result_message(request_id: Any, result: dict[str, Any]) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def encoded(message: Message) -> bytes:
    """One message as the line a stdio transport carries."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
