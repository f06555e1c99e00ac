"""The ask/reply contract: request ids, the instruction an asked agent reads, the stored shapes.

`wardian ask` types a question into an agent with REPLY_INSTRUCTION after it; the agent
answers by running the command the instruction names. The instruction's text is the
provider-neutral contract between Wardian and every agent, so it lives here and only here
(docs/cli.md quotes it; a test keeps the two equal).
"""

import re
import secrets
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    "--status done --stdin` with your answer on standard input (use --status blocked or --status failed, "
    "with the reason, if you cannot do it). Wardian reads your answer from that command, not from this terminal."
)


def new_request_id() -> str:
    return REQUEST_ID_PREFIX + secrets.token_hex(8)


def is_request_id(text: str) -> bool:
    return REQUEST_ID_PATTERN.fullmatch(text) is not None


def reply_instruction(request_id: str) -> str:
    return REPLY_INSTRUCTION.format(request_id=request_id)


def prompt_with_instruction(message: str, request_id: str) -> str:
    """What is typed into the asked agent: the question, a blank line, the instruction."""
    return f"{message.rstrip()}\n\n{reply_instruction(request_id)}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Reply(_Model):
    status: ReplyStatus
    body: str | None = Field(description="The answer's text (None for an output match).")
    source: ReplySource
    at: str = Field(description="When the host recorded it (UTC ISO 8601).")
    caller_pid: int | None = Field(None, description="The replying process, as the kernel reported it.")
    caller_agent: str | None = Field(None, description="The agent the caller was verified as, if any.")


class AskRecord(_Model):
    """One request as state.db keeps it and `ask show` / `ask list` print it."""

    request_id: str = Field(pattern=rf"^{REQUEST_ID_PATTERN.pattern}$")
    agent: str = Field(description="The asked agent's name at the time of asking.")
    agent_uuid: str
    status: RequestState
    message: str
    until: str | None = Field(None, description="`output:TOKEN` when the output fallback completes it.")
    asker: str | None = Field(None, description="The asking agent's name; None for a person.")
    asker_verified: bool | None = None
    created_at: str
    delivery: dict[str, object] | None = Field(None, description="What typing the question into the agent gave.")
    reply: Reply | None = None
