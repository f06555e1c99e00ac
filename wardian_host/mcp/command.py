"""The `wardian mcp` command: an MCP server on standard input and output, until the client leaves."""

import os
import sys

import click


@click.command("mcp")
def mcp() -> None:
    """Serve Wardian's verbs as MCP tools over stdio (each agent's CLI starts one: docs/mcp.md)."""
    import anyio

    from wardian_host.mcp.server import serve

    anyio.run(serve)
    # A call cut off by the client's leaving may still block its worker thread on the host's
    # socket, and the interpreter would wait for that thread at exit: the process ends now,
    # which closes that socket, so the host drops the call too.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
