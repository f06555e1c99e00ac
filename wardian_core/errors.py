"""Every error code Wardian can return, its exit code, and the error envelope.

A new code is added to `EXIT_CODES` and to docs/cli.md (a test checks both), never
invented inline. Errors travel as one exception type; one place in the CLI turns
it into the envelope on stderr and the exit code.
"""

import errno
import json
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

EXIT_CODES: dict[str, int] = {
    "generic": 1,
    "usage": 1,
    "invalid_field": 1,
    "duplicate_name": 1,
    "invalid_name": 1,
    "not_supported": 1,
    "bad_request": 1,
    "request_failed": 1,
    "wait_timeout": 1,
    "watch_timeout": 1,
    "agent_exited": 1,
    "cursor_expired": 1,
    "duplicate_reply": 1,
    "unauthorized": 1,
    "validation_failed": 1,
    "protocol_mismatch": 1,
    "not_live": 1,
    "approval_not_answered": 1,
    "message_too_large": 1,
    "write_failed": 1,
    "would_lose_work": 1,
    "worktree_in_use": 1,
    "worktree_missing": 1,
    "not_a_repository": 1,
    "git_failed": 1,
    "recording_off": 1,
    # An agent held by its budget: no prompt reaches it until the budget is raised or cleared.
    "budget_reached": 1,
    # `agent resume-limit` on an agent no usage limit holds; a resume that started no turn.
    "not_limited": 1,
    "limit_resume_failed": 1,
    "not_found": 2,
    "not_in_session": 3,
    "db_unavailable": 4,
    "state_corrupt": 4,
    "ambiguous": 5,
    "app_not_running": 6,
    "host_stopping": 6,
    "control_endpoint_timeout": 7,
    "host_busy": 7,
    # An MCP tool call the host had taken when it went away (the relay answers it).
    "host_restarted": 7,
    "remote_unreachable": 8,
}


def not_live(agent_name: str, status: str, why: str) -> "WardianError":
    """The refusal of every request that needs an agent's terminal when it has none."""
    return WardianError(
        "not_live",
        f"agent {agent_name} is {status}: {why}",
        f"Resume it first: `wardian agent resume {agent_name}`.",
        {"agent": agent_name, "status": status},
    )


_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def write_failed(target: Path, error: OSError) -> "WardianError":
    """A write the file system refused (read-only, full, no permission); what was stored is as it was."""
    if error.errno in _NO_SPACE:
        hint = f"Free some space on the disk holding {target.parent}, then run the command again."
    else:
        hint = f"Make {target.parent} writable (or point WARDIAN_HOME at a writable home), then run the command again."
    return WardianError(
        "write_failed",
        f"cannot write {target}: {error.strerror or error}; what was stored is unchanged",
        hint,
        {"path": str(target), "errno": errno.errorcode.get(error.errno or 0)},
    )


class WardianError(Exception):
    """A failure a user or an agent can act on: code, message, hint, details."""

    def __init__(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        if code not in EXIT_CODES:
            raise ValueError(f"unknown error code {code!r}: add it to EXIT_CODES")
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.details = details or {}

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.code]

    def envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            error["hint"] = self.hint
        if self.details:
            error["details"] = self.details
        return {"schema": SCHEMA_VERSION, "error": error}

    def to_json(self) -> str:
        return json.dumps(self.envelope(), indent=2)

    @classmethod
    def from_envelope(cls, envelope: dict[str, Any]) -> "WardianError":
        """Rebuild an error that crossed the control wire."""
        error = envelope.get("error") or {}
        code = error.get("code", "generic")
        if code not in EXIT_CODES:
            code = "generic"
        return cls(code, error.get("message", "unknown error"), error.get("hint"), error.get("details"))
