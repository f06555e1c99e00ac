"""The `mcp.session` request: a relay (`wardian mcp`) turns its control connection into one MCP
client's session, served on the host's loop until the relay leaves.

After the opening request the relay writes the CLI's JSON-RPC messages as lines; each message
the session sends back is a stream item `{"mcp": message}`. The caller is the relay's peer, tied
to an agent as every caller is (it is the agent's CLI's child); where it stands (the variable
naming its agent, its working directory) comes from the host's tie when verified, else from what
the relay says, as a `wardian` command's own environment would.
"""

import asyncio
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wardian_core.control.models import McpSessionParams
from wardian_core.version import __version__
from wardian_host.agents.mcp_readiness import McpReadiness
from wardian_host.answers.connection import CallerPlace
from wardian_host.daemon.caller_identity import Caller
from wardian_host.daemon.control_server import RequestContext, Routes
from wardian_host.daemon.in_host_requests import InHostClient
from wardian_host.mcp.messages import error_message
from wardian_host.mcp.relay import MAX_LINE_BYTES
from wardian_host.mcp.session import INVALID_REQUEST, McpSession

INSTRUCTIONS = (
    "Wardian's verbs for the agent you are: who you are (whoami), your peers (list_agents, show_agent, "
    "agent_screen, watch_output), talking to them (send, ask, and reply to a request you were asked), "
    "waiting on them (wait_for_agent), their lifecycle and workflows. Each answer is the JSON `wardian` prints."
)
SERVER_INFO = {"name": "wardian", "version": __version__}


def caller_place(params: McpSessionParams, caller: Caller) -> CallerPlace:
    agent = caller.agent if caller.verification == "verified" else None
    session_id = agent.uuid if agent is not None else (params.session_id or "")
    environ = {"WARDIAN_SESSION_ID": session_id} if session_id else {}
    cwd = params.cwd if params.cwd and os.path.isabs(params.cwd) else (str(agent.row["workspace"]) if agent else "/")
    return CallerPlace(environ, cwd)


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """The relay's next line (None at its end); b"" for a line over the relay's own limit, which a
    relay never sends, read to its end and kept nothing of."""
    gathered = bytearray()
    while True:
        try:
            gathered += await reader.readuntil(b"\n")
            return bytes(gathered) if len(gathered) <= MAX_LINE_BYTES else b""
        except asyncio.LimitOverrunError as overrun:
            gathered += await reader.readexactly(overrun.consumed)
            if len(gathered) > MAX_LINE_BYTES:
                gathered = bytearray(b" ")
        except asyncio.IncompleteReadError:
            return None


class McpSessions:
    """Every relay's session, answered by the host's routes; one pool of call threads for all."""

    def __init__(self, routes: Routes, classify: Callable[[Any], Caller], readiness: McpReadiness) -> None:
        self._routes = routes
        self._classify = classify
        self._readiness = readiness
        self._threads: ThreadPoolExecutor | None = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._threads is None:
            from wardian_host.mcp.host_tools import call_threads

            self._threads = call_threads()
        return self._threads

    async def serve(self, params: McpSessionParams, context: RequestContext) -> dict[str, Any]:
        caller = self._classify(context.peer)
        loop = asyncio.get_running_loop()
        connect = functools.partial(InHostClient, self._routes, context.peer, loop)
        # The tools' catalogue (some twenty parameter models) is built at the first session, not
        # at every host's start: a host with no MCP client never needs it.
        from wardian_host.mcp.host_tools import HostTools

        tools = HostTools(connect, caller_place(params, caller), self._pool())

        async def send(message: dict[str, Any]) -> None:
            await context.emit({"mcp": message})

        agent = caller.agent if caller.verification == "verified" else None
        if agent is not None:
            self._readiness.reconnected(agent)

        def listed() -> None:
            if agent is not None:
                self._readiness.listed(agent)

        session = McpSession(tools, send, SERVER_INFO, INSTRUCTIONS, listed)
        try:
            while (line := await read_line(context.reader)) is not None:
                if line:
                    await session.receive_line(line)
                else:
                    await send(error_message(None, INVALID_REQUEST, f"a message over {MAX_LINE_BYTES} bytes"))
        finally:
            await session.close()
        return {"closed": True}
