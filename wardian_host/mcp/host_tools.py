"""Wardian's tools as the host serves them to one MCP client: their listing, and each call
checked against its tool's model and answered by its verb's function in a worker thread, talking
to the host through the connection the host hands it (its own routes, with the relay's peer as
the caller: `wardian_host/daemon/in_host_requests`).
"""

import asyncio
import contextvars
import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from wardian_core.errors import WardianError
from wardian_core.mcp_tools import COOPERATION_TOOLS
from wardian_host.answers.connection import CallerPlace, Connection, caller_place, in_host
from wardian_host.mcp.arguments import checked, unknown_tool
from wardian_host.mcp.catalog import TOOLS, McpTool
from wardian_host.mcp.params import ToolParams, input_schema
from wardian_host.mcp.session import Report

log = logging.getLogger(__name__)

# Claude Code (2.1.197 and 2.1.330) keeps MCP tools behind its tool search unless a tool says
# otherwise: the ones an agent needs to cooperate are always in its prompt; the rest are found.
ALWAYS_LOADED = {"anthropic/alwaysLoad": True}
# How often a waiting call says it is still waiting (MCP progress notifications); the host's
# environment may set it (tests do).
PROGRESS_VARIABLE = "WARDIAN_MCP_PROGRESS_SECONDS"
DEFAULT_PROGRESS_SECONDS = 5.0
# Calls waiting at once across every agent (an ask may wait for its reply for the call's
# budget): each holds a thread of this pool, not the loop's own executor.
MAX_CALL_THREADS = 64


@functools.cache
def tool_listing() -> tuple[dict[str, Any], ...]:
    """Each tool as `tools/list` gives it: the schema of its CLI flags, built once per host."""
    return tuple(_listed(tool) for tool in TOOLS.values())


def _listed(tool: McpTool[Any]) -> dict[str, Any]:
    listed: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input_schema(tool.params),
    }
    if tool.read_only:
        listed["annotations"] = {"readOnlyHint": True}
    if tool.name in COOPERATION_TOOLS:
        listed["_meta"] = ALWAYS_LOADED
    return listed


def progress_seconds() -> float:
    try:
        seconds = float(os.environ.get(PROGRESS_VARIABLE, "") or DEFAULT_PROGRESS_SECONDS)
    except ValueError:
        return DEFAULT_PROGRESS_SECONDS
    return seconds if seconds > 0 else DEFAULT_PROGRESS_SECONDS


def call_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(MAX_CALL_THREADS, thread_name_prefix="mcp-call")


class CallConnection(Connection, Protocol):
    def cancel(self) -> None:
        """The call was cancelled or its client left: wake what waits on the host for it."""


class HostTools:
    """The tool table of one MCP session: `connect` gives each call its way to the host, as the
    session's caller; `place` is where that caller stands."""

    def __init__(self, connect: Callable[[], CallConnection], place: CallerPlace, threads: ThreadPoolExecutor) -> None:
        self._connect = connect
        self._place = place
        self._threads = threads

    def listing(self) -> list[dict[str, Any]]:
        return list(tool_listing())

    async def call(self, name: str, arguments: dict[str, Any], report: Report) -> dict[str, Any]:
        tool = TOOLS.get(name)
        if tool is None:
            raise unknown_tool(name)
        params = checked(tool, arguments)
        client = self._connect()
        work = functools.partial(self._answer, tool, params, client)
        running = asyncio.get_running_loop().run_in_executor(self._threads, work)
        beats = asyncio.create_task(self._beat(report, _waiting_for(name, params))) if tool.waits else None
        try:
            answer: dict[str, Any] = await running
            return answer
        except asyncio.CancelledError:
            client.cancel()  # wakes the thread: its request sees its client leave
            raise
        except WardianError:
            raise
        # A bug in one tool must not leave its caller waiting for ever: it is answered and logged.
        except Exception as exc:
            log.error("MCP tool %s failed", name, exc_info=True)
            raise WardianError("request_failed", f"{name} failed: {exc}", "See `wardian host logs`.") from None
        finally:
            if beats is not None:
                beats.cancel()

    def _answer(self, tool: McpTool[Any], params: ToolParams, client: CallConnection) -> dict[str, Any]:
        """In a worker thread: the verb's function, talking to the host as this session's caller."""

        def run() -> dict[str, Any]:
            in_host.set(client)
            caller_place.set(self._place)
            return tool.run(params)

        return contextvars.Context().run(run)

    async def _beat(self, report: Report, what: str) -> None:
        """A progress notification every few seconds, so the client (and a person watching it)
        sees the call is alive, not hung."""
        waited, every = 0.0, progress_seconds()
        while True:
            await asyncio.sleep(every)
            waited += every
            await report(waited, None, f"{what} ({waited:g} s)")


def _waiting_for(name: str, params: ToolParams) -> str:
    agent = getattr(params, "agent", "the agent")
    if name == "ask":
        return f"waiting for {agent} to reply"
    return f"waiting for {agent} to become {getattr(params, 'until', '')}"
