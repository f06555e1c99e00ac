"""What `wardian agent resume-limit` answers: the agent once Wardian continued the turn its usage
limit cut (the answer of the host's `agent.resume_limit`)."""

from typing import Any

from wardian_host.answers.connection import request
from wardian_host.answers.records import live_agent_envelope


def resume_limit_answer(target: str) -> dict[str, Any]:
    """Resume `target` now, whatever its schedule; the host answers once the turn started (or
    the resume failed), which takes at most `limits.turn_wait_seconds` past its slot."""
    snapshot = request("agent.resume_limit", {"target": target}, timeout=None)
    return live_agent_envelope(snapshot) | {"resumed": True}
