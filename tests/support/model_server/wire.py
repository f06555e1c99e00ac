"""HTTP replies and the request record shared by the protocol modules."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    reply_status: int = 0
    # What the fake model decided: "text", "tool_call", "error" or "" for non-model endpoints.
    reply_kind: str = ""
    # time.monotonic() when the request was read whole and when its answer was written whole
    # (the clock is the machine's: other processes' stamps compare with these).
    received_at: float = 0.0
    answered_at: float = 0.0

    @property
    def route(self) -> str:
        """The path without its query string."""
        return urlsplit(self.path).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.path).query)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def body_text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass(frozen=True)
class HttpReply:
    status: int
    content_type: str
    body: bytes
    kind: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(payload: Any, status: int = 200, kind: str = "") -> HttpReply:
    return HttpReply(status, "application/json", json.dumps(payload).encode(), kind)


def sse_reply(events: list[tuple[str | None, Any]], kind: str, done_marker: bool = False) -> HttpReply:
    """Server-sent events; `None` as the event name writes a bare `data:` line (OpenAI, Gemini)."""
    lines: list[str] = []
    for event, payload in events:
        if event is not None:
            lines.append(f"event: {event}")
        lines.append(f"data: {json.dumps(payload)}")
        lines.append("")
    if done_marker:
        lines += ["data: [DONE]", ""]
    body = ("\n".join(lines) + "\n").encode()
    return HttpReply(200, "text/event-stream", body, kind, {"Cache-Control": "no-cache"})


def openai_error(status: int) -> HttpReply:
    payload = {
        "error": {
            "message": f"mock error {status} requested",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    return json_reply(payload, status, kind="error")
