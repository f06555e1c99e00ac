"""The telemetry sources: the thread's lock, then its rollout, named in approval_source."""

from pathlib import Path

from wardian_codex import plugin
from wardian_core.provider import OutputSource, ParseResult

THREAD = "01a2002d-bdb3-7ee1-918a-96982cc53b81"


def codex_home(ctx) -> Path:
    return ctx.agent_dir / "habitat" / ".codex"


def write_rollout(ctx, name: str = f"rollout-2026-11-21T22-15-27-{THREAD}.jsonl") -> Path:
    day = codex_home(ctx) / "sessions" / "2026" / "11" / "21"
    day.mkdir(parents=True, exist_ok=True)
    (day / name).write_text("")
    return day / name


def without_hooks(sources: list[OutputSource]) -> list[OutputSource]:
    """The sources besides the hook log, which is followed all along (test_hooks.py)."""
    assert sources[0].name == "codex-hooks"
    return sources[1:]


def parsed(ctx, source: OutputSource, line: bytes):
    parser = plugin.parse_output(ctx=ctx, source=source)
    return parser.feed(line), getattr(parser, "state", None)


def test_a_fresh_launch_watches_for_the_threads_lock(make_ctx) -> None:
    [locks] = without_hooks(plugin.approval_source(ctx=make_ctx()))
    assert (locks.name, locks.kind, locks.pattern) == ("thread-locks", "directory", "*.lock")
    assert locks.path == codex_home(make_ctx()) / "thread-writer-locks"


def test_once_the_thread_is_known_the_sessions_folder_is_watched_for_its_rollout(make_ctx) -> None:
    [folder] = without_hooks(plugin.approval_source(ctx=make_ctx(provider_session_id=THREAD)))
    assert (folder.name, folder.kind) == ("sessions", "directory")
    assert folder.path == codex_home(make_ctx()) / "sessions" and folder.pattern == f"rollout-*-{THREAD}.jsonl"


def test_an_existing_rollout_is_followed_from_its_start_on_a_fresh_launch(make_ctx) -> None:
    ctx = make_ctx(provider_session_id=THREAD)
    rollout = write_rollout(ctx)
    folder, followed = without_hooks(plugin.approval_source(ctx=ctx))
    assert folder.name == "sessions"
    assert (followed.name, followed.kind, followed.path, followed.start_at_end) == ("rollout", "file", rollout, False)


def test_a_resumed_thread_is_followed_from_the_end_of_its_rollout(make_ctx) -> None:
    ctx = make_ctx(session_mode="resume", provider_session_id=THREAD, resume_args=["resume", THREAD])
    assert [source.name for source in plugin.approval_source(ctx=ctx)] == ["codex-hooks", "sessions"]
    write_rollout(ctx, f"rollout-2026-11-20T08-00-00-{THREAD}.jsonl")
    newest = write_rollout(ctx)
    _, followed = without_hooks(plugin.approval_source(ctx=ctx))
    assert (followed.name, followed.path, followed.start_at_end) == ("rollout-resumed", newest, True)


def test_headless_runs_follow_nothing(make_ctx) -> None:
    assert plugin.approval_source(ctx=make_ctx(mode="headless", prompt="x")) == []
    assert plugin.approval_source(ctx=make_ctx(mode="headless", prompt="x", provider_session_id=THREAD)) == []


def test_a_new_lock_tells_the_thread_id_once_and_asks_for_new_sources(make_ctx) -> None:
    ctx = make_ctx()
    [locks] = without_hooks(plugin.approval_source(ctx=ctx))
    parser = plugin.parse_output(ctx=ctx, source=locks)
    found = parser.feed(f"{THREAD}.lock".encode())
    assert [event.kind for event in found.events] == ["session_started"] and found.sources_changed
    assert found.events[0].session_id == THREAD and found.events[0].evidence.source == "thread-locks"
    other = b"01a20000-0000-7000-8000-000000000000.lock"
    assert parser.feed(other) == ParseResult()


def test_locks_that_are_no_thread_or_come_after_the_id_is_known_say_nothing(make_ctx) -> None:
    [locks] = without_hooks(plugin.approval_source(ctx=make_ctx()))
    for name in (b".coordination.lock", b"not-a-thread.lock", f"{THREAD}.tmp".encode()):
        assert parsed(make_ctx(), locks, name)[0] == ParseResult()
    known = make_ctx(provider_session_id=THREAD)
    assert parsed(known, locks, f"{THREAD}.lock".encode())[0] == ParseResult()


def test_the_rollout_appearing_asks_for_new_sources(make_ctx) -> None:
    ctx = make_ctx(provider_session_id=THREAD)
    [folder] = without_hooks(plugin.approval_source(ctx=ctx))
    result, _ = parsed(ctx, folder, f"2026/11/21/rollout-2026-11-21T22-15-27-{THREAD}.jsonl".encode())
    assert result.sources_changed and result.events == []
