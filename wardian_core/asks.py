"""The ask/reply contract: request ids, the instruction an asked agent reads, the stored shapes.

`wardian ask` types a question into an agent with REPLY_INSTRUCTION after it; the agent
answers by running the command the instruction names. The instruction's text is the
provider-neutral contract between Wardian and every agent, so it lives here and only here
(docs/cli.md quotes it; a test keeps the two equal). Plain data only: `wardian reply` runs
from agents' tools, so it stays free of pydantic (the stored shape is `models.AskRecord`).
"""

import re
import secrets
from typing import Literal

REQUEST_ID_PREFIX = "ask_"
REQUEST_ID_PATTERN = re.compile(r"ask_[0-9a-f]{16}")

# A reply and the output beside it fit one control frame (8 MiB) however JSON escapes them.
REPLY_BODY_MAX_CHARS = 64 * 1024

ReplyStatus = Literal["done", "blocked", "failed"]
REPLY_STATUSES: tuple[str, ...] = ("done", "blocked", "failed")
# pending: asked, no reply yet; undelivered: the question never reached the agent.
RequestState = Literal["pending", "done", "blocked", "failed", "undelivered"]
REQUEST_STATES: tuple[str, ...] = ("pending", *REPLY_STATUSES, "undelivered")
# agent: a process the asked agent's tree confirms; human: a person's terminal;
# output: the `--until output:TOKEN` fallback saw its token.
ReplySource = Literal["agent", "human", "output"]

REPLY_INSTRUCTION = (
    "[Wardian request {request_id}] Reply to this request by running `wardian reply {request_id} "
    "--status done --stdin` with your answer on standard input, or with a short answer as one quoted "
    "argument in place of --stdin (use --status blocked or --status failed, with the reason, if you cannot "
    "do it). Wardian reads your answer from that command, not from this terminal."
)


# The same, for an agent whose CLI has Wardian's MCP server (docs/mcp.md): its `reply` tool
# first, the command still named for a model that would rather run it.
MCP_REPLY_INSTRUCTION = (
    "[Wardian request {request_id}] Reply to this request by calling the `reply` tool of your `{server}` MCP "
    "server with request_id {request_id}, status done and your answer as message (status blocked or failed, with "
    "the reason, if you cannot do it), or by running `wardian reply {request_id} --status done --stdin` with your "
    "answer on standard input. Wardian reads your answer from that call, not from this terminal."
)


def new_request_id() -> str:
    return REQUEST_ID_PREFIX + secrets.token_hex(8)


def is_request_id(text: str) -> bool:
    return REQUEST_ID_PATTERN.fullmatch(text) is not None


def reply_instruction(request_id: str, mcp_server: str | None = None) -> str:
    """`mcp_server`: the name of the MCP server the agent's CLI has, whose `reply` tool it names."""
    if mcp_server is not None:
        return MCP_REPLY_INSTRUCTION.format(request_id=request_id, server=mcp_server)
    return REPLY_INSTRUCTION.format(request_id=request_id)


def prompt_with_instruction(message: str, request_id: str, mcp_server: str | None = None) -> str:
    """What is typed into the asked agent: the question, a blank line, the instruction."""
    return f"{message.rstrip()}\n\n{reply_instruction(request_id, mcp_server)}"
