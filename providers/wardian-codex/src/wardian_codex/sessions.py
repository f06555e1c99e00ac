"""Where Codex keeps a session, and the telemetry sources that follow it.

Codex 0.169.0 creates `<CODEX_HOME>/thread-writer-locks/<thread-id>.lock` as an interactive
session starts, before any model turn; its rollout,
`<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl`, appears only with the
first turn. So the host watches for the lock while the thread id is unknown, then for the
rollout, then follows the rollout itself. The log of Wardian's hooks (hooks.py) is followed
all along. Headless runs (`codex exec --json`) say everything on stdout and follow nothing.
"""

import re
from pathlib import Path

from wardian_codex import hooks
from wardian_codex.home import agent_codex_home
from wardian_core.provider import OutputSource, ParseResult, SpawnContext, hookimpl
from wardian_core.provider.parsing import SourceReader

LOCKS_SOURCE = "thread-locks"
SESSIONS_SOURCE = "sessions"
ROLLOUT_SOURCE = "rollout"
# A resumed thread's rollout already holds its earlier turns: the host starts at its end.
RESUMED_ROLLOUT_SOURCE = "rollout-resumed"
ROLLOUT_SOURCES = (ROLLOUT_SOURCE, RESUMED_ROLLOUT_SOURCE)

_THREAD_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_thread_id(value: str) -> bool:
    return bool(_THREAD_ID.match(value))


def rollout_pattern(thread_id: str) -> str:
    return f"rollout-*-{thread_id}.jsonl"


def rollout_file(codex_home: Path, thread_id: str) -> Path | None:
    """The thread's rollout, `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`; newest if several."""
    if not is_thread_id(thread_id):
        return None
    found = sorted((codex_home / "sessions").glob(f"*/*/*/{rollout_pattern(thread_id)}"))
    return found[-1] if found else None


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []
    codex_home = agent_codex_home(ctx)
    hook_log = OutputSource(name=hooks.HOOKS_SOURCE, kind="file", path=hooks.hooks_file(ctx))
    thread_id = ctx.provider_session_id
    if not thread_id or not is_thread_id(thread_id):
        locks = codex_home / "thread-writer-locks"
        return [hook_log, OutputSource(name=LOCKS_SOURCE, kind="directory", path=locks, pattern="*.lock")]
    sessions_dir = codex_home / "sessions"
    pattern = rollout_pattern(thread_id)
    sources = [hook_log, OutputSource(name=SESSIONS_SOURCE, kind="directory", path=sessions_dir, pattern=pattern)]
    rollout = rollout_file(codex_home, thread_id)
    if rollout is not None:
        resumed = ctx.session_mode == "resume"
        name = RESUMED_ROLLOUT_SOURCE if resumed else ROLLOUT_SOURCE
        sources.append(OutputSource(name=name, kind="file", path=rollout, start_at_end=resumed))
    return sources


class CodexLocks(SourceReader):
    """The thread-writer locks folder: a lock file appeared (its path relative to the folder), the
    new session's thread id."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        # The thread id this launch reported: a second lock (another thread) is not this session.
        self.reported: str | None = None

    def feed(self, data: bytes) -> ParseResult:
        name = data.decode("utf-8", "replace").rsplit("/", 1)[-1]
        thread_id = name.removesuffix(".lock")
        if self.known_session or self.reported or not name.endswith(".lock") or not is_thread_id(thread_id):
            return ParseResult()
        self.reported = thread_id
        rule = "thread-writer-locks/<thread-id>.lock appeared"
        started = self.event("session_started", rule, name, session_id=thread_id)
        # Known now: the host asks approval_source again and watches for the thread's rollout.
        return ParseResult(events=[started], sources_changed=True)


class CodexSessions(SourceReader):
    def feed(self, data: bytes) -> ParseResult:
        """The thread's rollout appeared (its first turn started): the host follows it from now on."""
        return ParseResult(sources_changed=True)
