"""Wardian's verbs as MCP tools for the agents, served by the host (docs/mcp.md).

`session` speaks the part of the protocol the tools use, `host_tools` answers its calls in
worker threads, `catalog` is the table of tools (each calls the function its CLI command calls,
from `wardian_host.answers`), `params` their inputs, `arguments` one call's checked arguments,
`long_calls` the calls that wait. `relay` is `wardian mcp`: a standard-library relay between an
agent's CLI and the host's control socket, started by the CLI's `mcp` command. The daemon imports
the rest; nothing here imports the CLI or click.
"""
