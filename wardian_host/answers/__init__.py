"""What each verb answers, below both the CLI (which prints it) and the host's MCP tools (which
hand it to a model): one function per verb, talking to the host through `connection`. No click,
no rendering: the host imports these to serve MCP.
"""
