"""A stand-in CLI given Wardian's MCP server as a real CLI is: it draws its prompt (`READY`)
first, and lists the server's tools only once a line is typed, from a `wardian mcp` child of its
own started by the MCP SDK's stdio client. Wardian's plumbing, never a provider's behaviour.

`python tool_listing_cli.py REGISTRATION`: REGISTRATION is the launch's McpRegistration as JSON.
"""

import json
import os
import sys
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def list_tools(registration: dict[str, Any]) -> None:
    # What a CLI's stdio client hands a server: a few of its own variables, then the registration's.
    given = {key: os.environ[key] for key in ("PATH", "HOME") if key in os.environ}
    server = StdioServerParameters(
        command=registration["command"], args=registration["args"], env=given | registration["env"]
    )
    # Opening the null device never waits on a disk.
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
    print(f"LISTED {len(listed.tools)}", flush=True)


def main() -> None:
    registration = json.loads(sys.argv[1])
    print("READY", flush=True)
    sys.stdin.readline()
    anyio.run(list_tools, registration)
    sys.stdin.readline()  # stays until its terminal closes


if __name__ == "__main__":
    main()
