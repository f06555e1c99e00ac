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


def server_parameters(**env: str) -> StdioServerParameters:
    given = {key: os.environ[key] for key in PASSED if key in os.environ}
    return StdioServerParameters(command=sys.executable, args=["-m", "wardian_host", "mcp"], env=given | env)


@asynccontextmanager
async def mcp_session(**env: str) -> AsyncIterator[ClientSession]:
    """A session with a `wardian mcp` child of this process; `env` adds to what it is given."""
    # Opening the null device never waits on a disk.
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230
        async with (
            stdio_client(server_parameters(**env), errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def call(
    session: ClientSession, tool: str, arguments: dict[str, Any] | None = None, progress: ProgressFnT | None = None
) -> tuple[bool, dict[str, Any]]:
    """(is_error, the JSON answer): the CLI's JSON, or its error envelope."""
    result = await session.call_tool(tool, arguments or {}, progress_callback=progress)
    assert isinstance(result.structured_content, dict), result
    return result.is_error, result.structured_content
