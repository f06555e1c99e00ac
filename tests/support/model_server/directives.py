"""Directives a test writes into a prompt to make the fake model answer deterministically.

`ECHO:<tok>` answers `MOCK-REPLY <tok>`; `MOCK_TOOL:<cmd>` calls the client's shell tool
with `<cmd>` (the rest of the line, up to the next directive); `MOCK_ESCALATE` asks for an
escalated sandbox (Codex's approval path); `MOCK_HTTP_ERROR:<status>` (or the shorter
`MOCK_ERROR:<status>` used by the shared fixtures) answers with that HTTP status;
`MOCK_DELAY_MS:<ms>` makes every model answer wait that long before it is written (the last
one in a request counts: its newest prompt's); `MOCK_HOLD:<name>` holds every model answer back
until the test calls `ModelServer.release(name)` (a turn kept open for as long as a test needs,
with no guess at how long that is).

`MOCK_LIMIT:<name>:<epoch seconds>` answers as the vendor does when a plan's or key's usage
limit is hit, until that reset time (the test picks it); from then on the turn is answered
as usual, so a CLI that retries, or a turn continued after the reset, goes through. `<name>`
is the vendor's own name of the limit (Anthropic's representative claim: `five_hour`,
`seven_day`, `seven_day_opus`…; the ChatGPT backend's window for Codex: `primary`, the 5-hour
one, or `secondary`, the weekly one; OpenAI's rate limit for Chat Completions, which OpenCode's
OpenAI-compatible provider meets: `requests` or `tokens`, per day; Google's for Gemini CLI: an
`ErrorInfo` reason in capitals, `QUOTA_EXHAUSTED` (Code Assist's, a signed-in plan's quota), or a
`QuotaFailure` quota id, `GenerateRequestsPerDayPerProjectPerModel` (an API key's)); each protocol
module renders it. `MOCK_RETRY_AFTER:<seconds>` makes a limit's answer say that `retry-after` in place of the
time left to the reset (a short window past while the long one is not), so a CLI that retries by
itself can be made to spend its retries before the reset.

In a `MOCK_TOOL` command the word `ASK_REQUEST_ID` stands for the request id of a
`wardian ask` (`ask_` and 16 lowercase hex digits) found anywhere in the same prompt — Wardian
appends it, in its reply instruction, after the asker's message — so no test hard-codes an id.
A prompt whose command needs an id but carries none is answered `MOCK-REPLY no-request-id`
and runs nothing.

`MOCK_MCP:<tool> <json>` calls the MCP tool the client declared under that name (each CLI
prefixes it with its server's: Claude and Codex `mcp__wardian__<tool>`, Gemini
`mcp_wardian_<tool>`, OpenCode `wardian_<tool>`) with the JSON object as its arguments, where
ASK_REQUEST_ID is filled in as in a command; after the tool result, `MOCK-REPLY tool-done`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ECHO = re.compile(r"ECHO:([\w.-]+)")
_ERROR = re.compile(r"MOCK_(?:HTTP_)?ERROR:(\d{3})")
_ESCALATE = re.compile(r"MOCK_ESCALATE\b")
_DELAY = re.compile(rb"MOCK_DELAY_MS:(\d{1,6})")
_HOLD = re.compile(rb"MOCK_HOLD:([\w.-]+)")
_LIMIT = re.compile(r"MOCK_LIMIT:(\w+):(\d{1,12})")
_RETRY_AFTER = re.compile(r"MOCK_RETRY_AFTER:(\d{1,9})")
# The command ends at the end of the line or where another directive starts, so a prompt can
# say `MOCK_TOOL:touch a.txt ECHO:tok` and still echo its token after the tool ran.
_TOOL = re.compile(r"MOCK_TOOL:(.+?)(?=\s+(?:ECHO:|MOCK_[A-Z_]+)|$)", re.MULTILINE)
# Exactly 16 hex digits: a longer or upper-case run is not an id, so it is never half-taken.
_REQUEST_ID = re.compile(r"(?<!\w)ask_[0-9a-f]{16}(?!\w)")
# The arguments are one JSON object on the directive's line.
_MCP = re.compile(r"MOCK_MCP:(\w+)\s+(\{.*?\})(?=\s+(?:ECHO:|MOCK_[A-Z_]+)|\s*$)", re.MULTILINE)

REQUEST_ID_PLACEHOLDER = "ASK_REQUEST_ID"
# The text the fake model writes before a tool call, as in the shared fixtures.
TOOL_PREAMBLE = "Running the requested command."
ESCALATION_JUSTIFICATION = "mock wants to run this outside the sandbox"
NO_REQUEST_ID_TEXT = "MOCK-REPLY no-request-id"


@dataclass(frozen=True)
class Directives:
    echo_token: str | None = None
    tool_command: str | None = None
    escalate: bool = False
    error_status: int | None = None
    # The command named ASK_REQUEST_ID but the prompt held no request id to put there.
    missing_request_id: bool = False
    mcp_tool: str | None = None
    mcp_arguments: str | None = None  # the JSON text, ASK_REQUEST_ID filled in
    # MOCK_LIMIT: the vendor's name of the limit and when it resets (epoch seconds).
    limit_name: str | None = None
    limit_resets_at: int | None = None
    # MOCK_RETRY_AFTER: the seconds a limit's answer says to wait, in place of those to its reset.
    limit_retry_after: int | None = None

    def reply_text(self) -> str:
        if self.missing_request_id:
            return NO_REQUEST_ID_TEXT
        return f"MOCK-REPLY {self.echo_token}" if self.echo_token else "MOCK-REPLY"

    def tool_done_text(self) -> str:
        suffix = f" {self.echo_token}" if self.echo_token else ""
        return f"MOCK-REPLY tool-done{suffix}"


def parse_directives(prompt: str) -> Directives:
    echo = _ECHO.search(prompt)
    tool = _TOOL.search(prompt)
    error = _ERROR.search(prompt)
    command, missing = _with_request_id(tool.group(1).strip() if tool else None, prompt)
    mcp = _MCP.search(prompt)
    limit = _LIMIT.search(prompt)
    retry_after = _RETRY_AFTER.search(prompt)
    mcp_arguments, mcp_missing = _with_request_id(mcp.group(2) if mcp else None, prompt)
    return Directives(
        mcp_tool=mcp.group(1) if mcp and not mcp_missing else None,
        mcp_arguments=mcp_arguments,
        echo_token=echo.group(1) if echo else None,
        tool_command=command,
        escalate=bool(_ESCALATE.search(prompt)),
        error_status=int(error.group(1)) if error else None,
        missing_request_id=missing or mcp_missing,
        limit_name=limit.group(1) if limit else None,
        limit_resets_at=int(limit.group(2)) if limit else None,
        limit_retry_after=int(retry_after.group(1)) if retry_after else None,
    )


def answer_delay(raw_body: bytes) -> float:
    """Seconds to wait before answering a model request: its last MOCK_DELAY_MS, else none."""
    delays = _DELAY.findall(raw_body)
    return int(delays[-1]) / 1000 if delays else 0.0


def answer_hold(raw_body: bytes) -> str | None:
    """The gate a model request's answer waits on: its last MOCK_HOLD name, else none."""
    holds = _HOLD.findall(raw_body)
    return holds[-1].decode() if holds else None


def _with_request_id(command: str | None, prompt: str) -> tuple[str | None, bool]:
    """The command with ASK_REQUEST_ID filled in, or (None, True) when the prompt has no id."""
    if command is None or REQUEST_ID_PLACEHOLDER not in command:
        return command, False
    found = _REQUEST_ID.search(prompt)
    if found is None:
        return None, True
    return command.replace(REQUEST_ID_PLACEHOLDER, found.group(0)), False
