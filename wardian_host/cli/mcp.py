"""The `wardian mcp` command: the relay between an agent's CLI and the host's MCP tools."""

import click


@click.command("mcp")
def mcp() -> None:
    """Relay MCP over stdio to the host's Wardian tools (each agent's CLI starts one: docs/mcp.md)."""
    from wardian_host.mcp.relay import main

    main()
