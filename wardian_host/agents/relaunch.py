"""The one rule that decides whether a relaunch continues the provider's session.

An agent's `session_persistence` is `fresh`, `resume`, or `default`, which follows the
global `sessions.regular` setting. A relaunch (`agent resume`, `agent restart`)
continues the provider session only when that effective persistence is `resume` and
the agent has a provider session id to continue; everything else starts fresh.
`agent clear` and `agent clone` never get here: they are fresh by definition.
"""

from typing import Literal

SessionMode = Literal["fresh", "resume"]
PERSISTENCES = ("default", "fresh", "resume")
GLOBAL_SETTINGS = ("fresh", "resume")


def effective_persistence(persistence: str, global_regular: str) -> SessionMode:
    """The agent's own choice, or the global `sessions.regular` when it says `default`."""
    if persistence not in PERSISTENCES:
        raise ValueError(f"session_persistence {persistence!r} is not one of {', '.join(PERSISTENCES)}")
    if global_regular not in GLOBAL_SETTINGS:
        raise ValueError(f"sessions.regular {global_regular!r} is not one of {', '.join(GLOBAL_SETTINGS)}")
    chosen = global_regular if persistence == "default" else persistence
    return "resume" if chosen == "resume" else "fresh"


def session_mode_for(persistence: str, global_regular: str, has_session_id: bool) -> SessionMode:
    """How to relaunch: `resume` only when persistence says so and there is a session to resume."""
    if effective_persistence(persistence, global_regular) == "resume" and has_session_id:
        return "resume"
    return "fresh"
