"""The host's MCP session fed lines no client should send (the relay passes each line as it came)."""

import asyncio
from typing import Any

from wardian_host.mcp.session import PARSE_ERROR, McpSession


class NoTools:
    def listing(self) -> list[dict[str, Any]]:
        return []

    async def call(self, name: str, arguments: dict[str, Any], report: Any) -> dict[str, Any]:
        raise AssertionError("no line here calls a tool")


def test_a_line_nested_too_deep_is_a_parse_error_and_the_session_goes_on() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def feed() -> None:
        session = McpSession(NoTools(), send, {"name": "wardian", "version": "0"}, "", lambda: None)
        for depth in (100_000, 5000):
            await session.receive_line(b"[" * depth + b"1" + b"]" * depth)
        await session.receive_line(b'{"jsonrpc":"2.0","id":7,"method":"ping"}')

    asyncio.run(feed())
    assert [message["error"]["code"] for message in sent[:2]] == [PARSE_ERROR, PARSE_ERROR]
    assert sent[2] == {"jsonrpc": "2.0", "id": 7, "result": {}}
