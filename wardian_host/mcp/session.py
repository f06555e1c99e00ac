"""One MCP client's session, as the host serves it: JSON-RPC 2.0 messages in, messages out.

The part of the Model Context Protocol Wardian's tools use, over the handshake revisions the
CLIs speak (2024-11-05 to 2025-11-25): `initialize`, `ping`, `tools/list`, `tools/call` (each
call a task of its own, so calls run side by side and one can be cancelled), progress
notifications for a call that names a `progressToken`, and `notifications/cancelled`. The
transport is the caller's (the relay's control connection: `wardian_host/mcp/relay_route`);
the tools are `ToolTable`'s. Plain json, no SDK: the host serves every agent's CLI from its own
loop, and the SDK's import alone cost each agent over a second of CPU.
"""

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from wardian_core.errors import WardianError
from wardian_host.mcp.messages import Message, error_message, failed_call, result_message, tool_result

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_VERSION = HANDSHAKE_VERSIONS[-1]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

Send = Callable[[Message], Awaitable[None]]
# (progress so far, total if known, what is being waited for): a notification to the client.
Report = Callable[[float, float | None, str | None], Awaitable[None]]


class ToolTable(Protocol):
    """What a session needs of the tools: their listing, and one call's answer (or a WardianError)."""

    def listing(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: dict[str, Any], report: Report) -> dict[str, Any]: ...


class McpSession:
    """One client: its messages handled in order, its tool calls running as tasks."""

    def __init__(
        self,
        tools: ToolTable,
        send: Send,
        server_info: dict[str, str],
        instructions: str,
        on_listed: Callable[[], None],
    ) -> None:
        self._tools = tools
        self._send = send
        self._server_info = server_info
        self._instructions = instructions
        self._on_listed = on_listed  # the client has Wardian's tools: what makes its agent ready
        self._calls: dict[Any, asyncio.Task[None]] = {}

    async def receive_line(self, line: bytes) -> None:
        """One line of the transport: a message, or a batch of them (2025-03-26)."""
        try:
            decoded = json.loads(line)
        except ValueError:
            await self._send(error_message(None, PARSE_ERROR, "not JSON"))
            return
        except RecursionError:  # the decoder recurses per level: a line nested ~1000 deep ends here
            await self._send(error_message(None, PARSE_ERROR, "nested too deep"))
            return
        for message in decoded if isinstance(decoded, list) else [decoded]:
            await self.receive(message)

    async def receive(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            await self._send(error_message(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message"))
            return
        method = message.get("method")
        if not isinstance(method, str):
            return  # a response to a request the server never sends: nothing to do
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" not in message:
            self._notified(method, params)
            return
        await self._request(message["id"], method, params)

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            call = self._calls.pop(params.get("requestId"), None)
            if call is not None:
                call.cancel()  # a cancelled request is never answered (the protocol's rule)

    async def _request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if method == "tools/call":
            self._start_call(request_id, params)
            return
        answers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "initialize": self._initialized,
            "ping": lambda _: {},
            "tools/list": self._listed,
        }
        answer = answers.get(method)
        if answer is None:
            await self._send(error_message(request_id, METHOD_NOT_FOUND, f"no method {method!r}"))
            return
        await self._send(result_message(request_id, answer(params)))

    def _initialized(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else LATEST_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self._server_info,
            "instructions": self._instructions,
        }

    def _listed(self, _: dict[str, Any]) -> dict[str, Any]:
        listing = {"tools": self._tools.listing()}
        self._on_listed()
        return listing

    def _start_call(self, request_id: Any, params: dict[str, Any]) -> None:
        self._calls[request_id] = asyncio.create_task(self._call(request_id, params))

    async def _call(self, request_id: Any, params: dict[str, Any]) -> None:
        try:
            answer = await self._call_answer(request_id, params)
            with contextlib.suppress(ConnectionError):  # the client left meanwhile: nobody to tell
                await self._send(answer)
        finally:
            if self._calls.get(request_id) is asyncio.current_task():
                del self._calls[request_id]

    async def _call_answer(self, request_id: Any, params: dict[str, Any]) -> Message:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return error_message(request_id, INVALID_PARAMS, "tools/call needs a name and an arguments object")
        try:
            return result_message(
                request_id, tool_result(await self._tools.call(name, arguments, self._reporter(params)))
            )
        except WardianError as error:
            return result_message(request_id, failed_call(error))

    def _reporter(self, params: dict[str, Any]) -> Report:
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            if token is None:
                return
            fields: dict[str, Any] = {"progressToken": token, "progress": progress}
            fields |= {"total": total} if total is not None else {}
            fields |= {"message": message} if message is not None else {}
            await self._send({"jsonrpc": "2.0", "method": "notifications/progress", "params": fields})

        return report

    async def close(self) -> None:
        """The client left: every call in flight is cancelled, answered to nobody."""
        calls = list(self._calls.values())
        self._calls.clear()
        for call in calls:
            call.cancel()
        for call in calls:
            with contextlib.suppress(asyncio.CancelledError):
                await call
