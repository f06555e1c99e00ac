"""Directives a test writes into a prompt to make the fake model answer deterministically.

`ECHO:<tok>` answers `MOCK-REPLY <tok>`; `MOCK_TOOL:<cmd>` calls the client's shell tool
with `<cmd>` (the rest of the line, up to the next directive); `MOCK_ESCALATE` asks for an
escalated sandbox (Codex's approval path); `MOCK_HTTP_ERROR:<status>` (or the shorter
`MOCK_ERROR:<status>` used by the shared fixtures) answers with that HTTP status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ECHO = re.compile(r"ECHO:([\w.-]+)")
_ERROR = re.compile(r"MOCK_(?:HTTP_)?ERROR:(\d{3})")
_ESCALATE = re.compile(r"MOCK_ESCALATE\b")
# The command ends at the end of the line or where another directive starts, so a prompt can
# say `MOCK_TOOL:touch a.txt ECHO:tok` and still echo its token after the tool ran.
_TOOL = re.compile(r"MOCK_TOOL:(.+?)(?=\s+(?:ECHO:|MOCK_[A-Z_]+)|$)", re.MULTILINE)

# The text the fake model writes before a tool call, as in the shared fixtures.
TOOL_PREAMBLE = "Running the requested command."
ESCALATION_JUSTIFICATION = "mock wants to run this outside the sandbox"


@dataclass(frozen=True)
class Directives:
    echo_token: str | None = None
    tool_command: str | None = None
    escalate: bool = False
    error_status: int | None = None

    def reply_text(self) -> str:
        return f"MOCK-REPLY {self.echo_token}" if self.echo_token else "MOCK-REPLY"

    def tool_done_text(self) -> str:
        suffix = f" {self.echo_token}" if self.echo_token else ""
        return f"MOCK-REPLY tool-done{suffix}"


def parse_directives(prompt: str) -> Directives:
    echo = _ECHO.search(prompt)
    tool = _TOOL.search(prompt)
    error = _ERROR.search(prompt)
    return Directives(
        echo_token=echo.group(1) if echo else None,
        tool_command=tool.group(1).strip() if tool else None,
        escalate=bool(_ESCALATE.search(prompt)),
        error_status=int(error.group(1)) if error else None,
    )
