"""A stand-in CLI given Wardian's MCP server as a real CLI is: it draws its prompt (`READY`)
first, and lists the server's tools only once a line is typed, from a `wardian mcp` child of its
own started by the MCP SDK's stdio client. Wardian's plumbing, never a provider's behaviour.

`python tool_listing_cli.py REGISTRATION`: REGISTRATION is the launch's McpRegistration as JSON.
"""

import json
import sys
from typing import Any

import anyio
from mcp_client import registered_server, session_with


async def list_tools(registration: dict[str, Any]) -> None:
    server = registered_server(registration["command"], registration["args"], registration["env"])
    async with session_with(server) as session:
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
