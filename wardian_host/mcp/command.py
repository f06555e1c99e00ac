"""The `wardian mcp` command: an MCP server on standard input and output, until the client leaves."""

import click


@click.command("mcp")
def mcp() -> None:
    """Serve Wardian's verbs as MCP tools over stdio (each agent's CLI starts one: docs/mcp.md)."""
    import anyio

    from wardian_host.mcp.server import serve

    anyio.run(serve)
