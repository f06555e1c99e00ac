"""The usage limit an agent waits out, as its record carries it (`limit`) and state.db keeps it.

Set when its provider reports `limit_reached` (the limit cut the turn: `state` `cut`) or
`limit_retrying` (the CLI retries by itself: `retrying`), cleared when a turn starts again. The
resume Wardian scheduled is part of it (`resume_at`, `resume`), so a host that starts after a
restart or a crash finds the schedule in the row, not in the memory of the host that made it.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from wardian_core.provider_models import LimitKind

# cut: the limit ended the turn and the CLI waits (idle); retrying: the CLI retries by itself.
LimitState = Literal["cut", "retrying"]
# auto: Wardian continues the turn at `resume_at`; ask: it waits in the person's queue
# (`wardian inbox`) for `wardian agent resume-limit`; failed: a resume did not start a turn, a
# person looks (also in the queue).
ResumePlan = Literal["auto", "ask", "failed"]
# Who continued the turn: Wardian's resume, the CLI's own retry, or a prompt from anyone else.
ResumedBy = Literal["wardian", "cli", "other"]


class AgentLimit(BaseModel):
    """`limit` on an agent record while it is limited."""

    model_config = ConfigDict(extra="forbid")

    kind: LimitKind
    state: LimitState
    resets_at: str | None = Field(None, description="When the CLI says the limit resets (ISO 8601 UTC).")
    retry_at: str | None = Field(None, description="The CLI's next attempt by itself, when it says.")
    message: str | None = None
    source: str = Field(description="The output source the provider read it from (`pty`, `hooks`, ...).")
    rule: str | None = None
    reached_at: str = Field(description="When Wardian recorded it.")
    resume: ResumePlan = "auto"
    resume_at: str | None = Field(
        None,
        description="When Wardian continues the turn (`resets_at` plus a small random delay, or "
        "`limits.unknown_reset_seconds` after it hit when the CLI gave no reset); for a CLI retrying "
        "by itself, when Wardian stops waiting for that retry.",
    )
    attempts: int = Field(0, ge=0, description="Resumes Wardian started for this limit.")
    failure: str | None = Field(None, description="Why the last resume failed.")
