"""`wardian mcp` through the official SDK's own client (stdio_client and ClientSession), as an
agent's CLI runs it: a child process of the caller, on standard input and output."""

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.dispatcher import ProgressFnT

# What a CLI's stdio client hands its servers is little of its own environment (the SDK's
# default: PATH, HOME and a few more); Wardian's registration adds its home and agent.
PASSED = ("PATH", "HOME", "WARDIAN_HOME", "WARDIAN_SESSION_ID")


def registered_server(command: str, args: list[str], env: dict[str, str]) -> StdioServerParameters:
    """A server as a CLI's registration names it, given what a CLI's stdio client passes on."""
    given = {key: os.environ[key] for key in PASSED if key in os.environ}
    return StdioServerParameters(command=command, args=args, env=given | env)


def server_parameters(**env: str) -> StdioServerParameters:
    return registered_server(sys.executable, ["-m", "wardian_host", "mcp"], env)


@asynccontextmanager
async def session_with(server: StdioServerParameters) -> AsyncIterator[ClientSession]:
    """An initialized session with `server`, started as a child of this process."""
    # Opening the null device never waits on a disk.
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def mcp_session(**env: str) -> AsyncIterator[ClientSession]:
    """A session with a `wardian mcp` child of this process; `env` adds to what it is given."""
    async with session_with(server_parameters(**env)) as session:
        yield session


async def call(
    session: ClientSession, tool: str, arguments: dict[str, Any] | None = None, progress: ProgressFnT | None = None
) -> tuple[bool, dict[str, Any]]:
    """(is_error, the JSON answer): the CLI's JSON, or its error envelope."""
    result = await session.call_tool(tool, arguments or {}, progress_callback=progress)
    assert isinstance(result.structured_content, dict), result
    return result.is_error, result.structured_content
