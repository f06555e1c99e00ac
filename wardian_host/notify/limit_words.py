"""What a person is told at each step of a usage limit (a notice of kind `limit`)."""

from typing import Any

# The steps worth a word; `limit_resume_started` is followed within its bound by resumed or failed.
_WORDS = {
    "limit_reached": ("{name} hit its {kind} limit", "resets {resets}; {plan}"),
    "limit_retrying": ("{name} hit its {kind} limit", "its CLI retries by itself ({retry})"),
    "limit_resume_scheduled": ("{name} resumes at {resume_at}", "after its {kind} limit ({basis})"),
    "limit_resume_asked": ("{name} waits for you to resume it", "after its {kind} limit: {command}"),
    "limit_resumed": ("{name} resumed after its {kind} limit", "resumed by {by}"),
    "limit_resume_failed": ("{name} did not resume after its {kind} limit", "{reason}"),
    "limit_cleared": ("{name} no longer waits out its {kind} limit", "{reason}"),
}


def limit_words(step: str, name: str, payload: dict[str, Any], kind: str | None) -> tuple[str, str] | None:
    """The title and body of `step`'s notice for agent `name`, None for a step told to nobody."""
    words = _WORDS.get(step)
    if words is None:
        return None
    limit = payload.get("limit") or {}
    values = {
        "name": name,
        "kind": kind or limit.get("kind") or "usage",
        "resets": limit.get("resets_at") or "at a time its CLI did not say",
        "retry": f"next at {limit['retry_at']}" if limit.get("retry_at") else "when it says",
        "plan": "Wardian schedules its resume",
        **{key: value for key, value in payload.items() if isinstance(value, str | int)},
    }
    title, body = words
    return title.format_map(_Blank(values)), body.format_map(_Blank(values))


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"
