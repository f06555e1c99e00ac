"""Gemini CLI 0.61.0 retrying a short 429 by itself, read from its debug log.

The recording is the debug log (`GEMINI_DEBUG_LOG_FILE`) of a real session through `wardian`
(paths shortened): a turn at a Code Assist quota (`QUOTA_EXHAUSTED`, terminal: a dialog, no
retry), then one at an API key's per-minute quota answered 429 with a `RetryInfo` of 2 s
(`MOCK_LIMIT:GenerateRequestsPerMinutePerProjectPerModel`), which Gemini retried 5.8 s later.
"""

from pathlib import Path

from wardian_core.provider import LimitReport, LimitResume, OutputSource
from wardian_gemini import home, parser, plugin, retries

RECORDED = (Path(__file__).parent / "fixtures" / "recordings" / "gemini-debug-log-retry.log").read_bytes()
DEBUG_LOG = OutputSource(name=retries.DEBUG_LOG_SOURCE, kind="file", path=Path("/unused"))
RETRY_ENTRY = (
    "Attempt 1 failed: You exceeded your current quota, please check your plan and billing details. "
    "Suggested retry after 2s.. Retrying after 5807ms..."
)


def feed(lines: list[bytes], log: retries.RetryLog | None = None) -> list:
    log = log or retries.RetryLog(DEBUG_LOG)
    return [event for line in lines for event in log.feed(line).events]


def test_the_recorded_retry_is_one_limit_retrying_with_its_next_attempt() -> None:
    """Before this, nothing read Gemini's own retry: the agent showed `processing`, no limit."""
    [retrying] = feed(RECORDED.splitlines(keepends=True))

    assert (retrying.kind, retrying.evidence.source, retrying.evidence.rule) == (
        "limit_retrying",
        "gemini-debug-log",
        "debug log retry",
    )
    # Logged at 07:27:03.486, retried 5807 ms later: 07:27:09.293, to the next whole second.
    assert retrying.limit == LimitReport(kind="rate", retry_at="2026-12-02T07:27:10Z", message=RETRY_ENTRY)
    assert retrying.evidence.line == "Suggested retry after 2s.. Retrying after 5807ms..."


def test_an_entry_is_told_once_and_the_parser_rests_between_entries() -> None:
    log = retries.RetryLog(DEBUG_LOG)
    rests = [log.feed(line).at_rest for line in RECORDED.splitlines(keepends=True)]
    first = RECORDED.splitlines().index(next(line for line in RECORDED.splitlines() if b"Attempt 1 failed" in line))

    assert rests[first] is False  # its message goes on to the next line
    assert all(rests[:first]) and all(rests[first + 1 :])
    assert feed([b"[2026-12-02T07:27:10.000Z] [DEBUG] later\n"], log) == []


def test_a_429_with_no_delay_is_retrying_with_no_time_and_a_5xx_is_no_limit() -> None:
    backoff = b"[2026-12-02T07:30:00.000Z] [WARN] Attempt 2 failed with status 429. Retrying with backoff... Error\n"
    server = b"[2026-12-02T07:30:00.000Z] [WARN] Attempt 2 failed with status 503. Retrying with backoff... Error\n"
    last = b"[2026-12-02T07:30:00.000Z] [WARN] Attempt 10 failed: quota. Max attempts reached\n"

    [retrying] = feed([backoff])

    assert retrying.limit is not None and retrying.limit.retry_at is None
    assert feed([server]) == [] and feed([last]) == []


def test_the_launch_writes_the_debug_log_where_the_parser_follows_it(make_ctx) -> None:
    ctx = make_ctx()

    env = plugin.build_argv(ctx=ctx).env
    followed = [source for source in plugin.approval_source(ctx=ctx) if source.name == retries.DEBUG_LOG_SOURCE]

    assert env["GEMINI_DEBUG_LOG_FILE"] == str(home.debug_log(ctx))
    assert followed == [OutputSource(name=retries.DEBUG_LOG_SOURCE, kind="file", path=home.debug_log(ctx))]
    assert isinstance(parser.parser_for(ctx, followed[0]), retries.RetryLog)
    assert "GEMINI_DEBUG_LOG_FILE" not in plugin.build_argv(ctx=make_ctx(mode="headless", prompt="p")).env


def test_a_retry_gemini_makes_by_itself_is_waited_for_with_no_key(make_ctx) -> None:
    """A person's `resume-limit` during the retry would otherwise type Stop's number and the cut
    prompt into the running turn."""
    [retrying] = feed(RECORDED.splitlines(keepends=True))
    [backoff] = feed(
        [b"[2026-12-02T07:30:00.000Z] [WARN] Attempt 2 failed with status 429. Retrying with backoff...\n"]
    )

    for limit in (retrying.limit, backoff.limit):
        assert limit is not None
        assert plugin.limit_resume(ctx=make_ctx(), limit=limit) == LimitResume(how="wait", text=None)
