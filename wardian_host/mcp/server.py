"""`wardian mcp`: the CLI's verbs as MCP tools over stdio, on the official SDK's low-level `Server`.

Why the low-level server and not `MCPServer` (the SDK's former FastMCP): the tools are a table
that already exists (catalog), each with its pydantic model of the CLI's flags. The low-level
server takes that model's JSON Schema as the tool's input schema as it is, and leaves the
checking of arguments to us, so a bad argument gets Wardian's envelope (`invalid_field`) like
a bad flag; `MCPServer` would derive schemas from function signatures and word its own errors.
Both cost the same start-up: importing any of the SDK imports all of it.

Who calls is the host's business, as for every command: this process connects to the host's
socket as the CLI does, and the host classifies it by its process tree (it runs as a child of
the agent's CLI), so a tool call is the agent's own exactly as its `wardian` command would be.
"""

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wardian_core.errors import WardianError
from wardian_core.mcp_tools import COOPERATION_TOOLS

if TYPE_CHECKING:
    from mcp import types
    from mcp.server.context import ServerRequestContext

# How often a waiting call says it is still waiting (MCP progress notifications).
PROGRESS_VARIABLE = "WARDIAN_MCP_PROGRESS_SECONDS"
DEFAULT_PROGRESS_SECONDS = 5.0
INSTRUCTIONS = (
    "Wardian's verbs for the agent you are: who you are (whoami), your peers (list_agents, show_agent, "
    "agent_screen, watch_output), talking to them (send, ask, and reply to a request you were asked), "
    "waiting on them (wait_for_agent), their lifecycle and workflows. Each answer is the JSON `wardian` prints."
)


# Claude Code (2.1.197 and 2.1.330) keeps MCP tools behind its tool search unless a tool says
# otherwise: the ones an agent needs to cooperate are always in its prompt; the rest are found.
ALWAYS_LOADED = {"anthropic/alwaysLoad": True}


def progress_seconds() -> float:
    try:
        seconds = float(os.environ.get(PROGRESS_VARIABLE, "") or DEFAULT_PROGRESS_SECONDS)
    except ValueError:
        return DEFAULT_PROGRESS_SECONDS
    return seconds if seconds > 0 else DEFAULT_PROGRESS_SECONDS


def tool_list() -> "list[types.Tool]":
    from mcp import types

    from wardian_host.mcp.catalog import TOOLS
    from wardian_host.mcp.params import input_schema

    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=input_schema(tool.params),
            annotations=types.ToolAnnotations(read_only_hint=tool.read_only or None),
            meta=ALWAYS_LOADED if tool.name in COOPERATION_TOOLS else None,
        )
        for tool in TOOLS.values()
    ]


def failed(error: WardianError) -> "types.CallToolResult":
    """A tool error the model can read and act on: the envelope, as JSON text and as structured content."""
    from mcp import types

    envelope = error.envelope()
    text = types.TextContent(text=json.dumps(envelope, indent=2))
    return types.CallToolResult(content=[text], structured_content=envelope, is_error=True)


def succeeded(answer: dict[str, Any]) -> "types.CallToolResult":
    from mcp import types

    text = types.TextContent(text=json.dumps(answer, indent=2))
    return types.CallToolResult(content=[text], structured_content=answer)


async def call_tool(ctx: "ServerRequestContext[Any]", params: "types.CallToolRequestParams") -> "types.CallToolResult":
    from wardian_host.mcp.dispatch import answer_call

    report = ctx.session.report_progress
    try:
        return succeeded(await answer_call(params.name, params.arguments or {}, report, progress_seconds()))
    except WardianError as error:
        return failed(error)


async def list_tools(
    _: "ServerRequestContext[Any]", __: "types.PaginatedRequestParams | None"
) -> "types.ListToolsResult":
    from mcp import types

    return types.ListToolsResult(tools=tool_list())


class UntilClosed:
    """The client's messages; their end (stdin closed: the client has gone) calls `on_end`.

    The SDK's server, at that end, waits for the calls still running, and a wait for an
    agent may take hours that nobody will read the answer of."""

    def __init__(self, messages: Any, on_end: Callable[[], None]) -> None:
        self._messages = messages
        self._on_end = on_end

    @property
    def last_context(self) -> Any:  # the SDK runs each handler in the context its message came in
        return getattr(self._messages, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._messages.receive()
        except anyio.EndOfStream:
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._messages.aclose()

    def __aiter__(self) -> "UntilClosed":
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> "UntilClosed":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def serve() -> None:
    """Serve until stdin closes, then stop at once, cancelling any call in flight."""
    import anyio
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from wardian_core.version import __version__

    server: Server[Any] = Server(
        "wardian", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )
    # The scope holds the transport too: its writer would otherwise wait for answers never sent.
    with anyio.CancelScope() as scope:
        async with stdio_server() as (read_stream, write_stream):
            messages = UntilClosed(read_stream, scope.cancel)
            await server.run(messages, write_stream, server.create_initialization_options())
