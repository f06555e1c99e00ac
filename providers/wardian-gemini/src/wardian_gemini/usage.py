"""What Gemini CLI records of a turn's cost (0.61.0). It states no cost and no context window.

Interactive sessions: its session log, `<GEMINI_CLI_HOME>/.gemini/tmp/<project>/chats/
session-<time>-<first 8 characters of the session id>.jsonl`, one JSON record a line; each model
message is appended again as it grows, and its `tokens` (`input`: the prompt, cached part
included; `output`: the candidates, thoughts apart) once the call ends. Only the main model's
calls are recorded there. Headless runs: the `result` line's `stats` totals the run, the
model router's call included, and counts no thoughts.
"""

from pathlib import Path
from typing import Any

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import (
    JsonLinesParser,
    count,
    iso_time,
    less,
    object_field,
    plus,
    text_field,
    usage_event,
)
from wardian_gemini.home import agent_home

CHATS_SOURCE = "gemini-chats"
SESSION_LOG_SOURCE = "gemini-session-log"


def session_log_pattern(session_id: str) -> str:
    return f"session-*-{session_id[:8]}.jsonl"


def temp_dir(ctx: SpawnContext) -> Path:
    return agent_home(ctx) / ".gemini" / "tmp"


def session_log(ctx: SpawnContext) -> Path | None:
    """The session's log once Gemini made it (newest if several)."""
    if not ctx.provider_session_id:
        return None
    found = sorted(temp_dir(ctx).glob(f"*/chats/{session_log_pattern(ctx.provider_session_id)}"))
    return found[-1] if found else None


def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    """The chats folders watched until the session's log appears, then the log followed."""
    if not ctx.provider_session_id:
        return []
    pattern = session_log_pattern(ctx.provider_session_id)
    sources = [OutputSource(name=CHATS_SOURCE, kind="directory", path=temp_dir(ctx), pattern=pattern)]
    log = session_log(ctx)
    if log is not None:
        sources.append(OutputSource(name=SESSION_LOG_SOURCE, kind="file", path=log))
    return sources


class LogAppeared:
    """The session's log appeared: the host asks for the sources again and follows it."""

    def feed(self, data: bytes) -> ParseResult:
        return ParseResult(sources_changed=True)


class SessionLog(JsonLinesParser):
    """The session's log, read without memory: each model message with its tokens, one turn named
    by the message id (appended again as it grows, and rewritten whole on a compression: counted
    once)."""

    at_rest = True

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        return _message_usage(self.source, record)


def _message_usage(source: OutputSource, record: dict[str, Any]) -> ParseResult:
    if record.get("type") != "gemini":
        return ParseResult()
    tokens, message_id = object_field(record, "tokens"), text_field(record, "id")
    if not tokens or message_id is None:
        return ParseResult()
    prompt, cached, thoughts = count(tokens, "input"), count(tokens, "cached"), count(tokens, "thoughts")
    reported = usage_event(
        source,
        "session log gemini tokens",
        f"gemini {message_id} {text_field(record, 'model')} tokens={tokens}",
        turn_key=message_id,
        model=text_field(record, "model"),
        input_tokens=less(prompt, cached),
        output_tokens=plus(count(tokens, "output"), thoughts),
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
        context_used=prompt,
        recorded_at=iso_time(record.get("timestamp")),
    )
    return ParseResult(events=[reported])


def result_usage(source: OutputSource, record: dict[str, Any], line: str) -> ProviderEvent | None:
    """A headless run's `result` stats: its calls' totals, as one turn named by the result's time."""
    stats = object_field(record, "stats")
    if not stats:
        return None
    models = sorted(object_field(stats, "models"))
    prompt, cached = count(stats, "input_tokens"), count(stats, "cached")
    return usage_event(
        source,
        "result stats",
        line,
        turn_key=f"result:{text_field(record, 'timestamp') or 'run'}",
        # Several models answer a run (the router's and the main one): all are named.
        model=",".join(models) or None,
        input_tokens=less(prompt, cached),
        output_tokens=count(stats, "output_tokens"),
        cache_read_tokens=cached,
        recorded_at=iso_time(record.get("timestamp")),
    )
