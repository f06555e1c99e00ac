"""`wardian mcp`: Wardian's verbs as MCP tools for the agents (docs/mcp.md).

`command` is the click command, `server` the SDK's wiring, `catalog` the tools (each calls the
function its CLI command calls), `params` their inputs, `dispatch` one call, `long_calls` the
calls that wait. It sits above `cli`, whose functions it calls; nothing imports it but the CLI's
command table, by name.
"""
