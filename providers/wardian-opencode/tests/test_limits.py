"""OpenCode 1.18.33 at a usage limit, read from its event stream (`fixtures/recordings`, recorded
through `wardian` against the model server answering as OpenAI does: 429 `rate_limit_exceeded`,
`retry-after`, `x-ratelimit-*-<type>`).

`opencode-events-limit.sse`: a turn whose limit reset 4 s ahead (OpenCode retried once and the
turn went on), a turn whose limit reset 20 s ahead while the answer said `retry-after: 1` (five
retries, then it gave up; the limit reset at 03:36:27Z, epoch 1796182587), and `continue` typed
after that reset. `opencode-events-limit-day-ahead.sse`: a reset a day ahead, `retry-after` the
same: OpenCode set its next attempt a day later.
"""

from datetime import UTC, datetime
from pathlib import Path

from wardian_core.provider import LimitReport, LimitResume, OutputSource, ProviderEvent
from wardian_core.provider.parsing import EventParser
from wardian_core.provider.testing import next_status
from wardian_opencode import events, limits

RECORDINGS = Path(__file__).parent / "fixtures" / "recordings"
SOURCE = OutputSource(name="opencode-events", kind="sse", url="http://127.0.0.1:1/event")
# The moment the day-ahead retry was told (its `next` less the answer's `retry-after`, 89998 s).
TOLD = datetime(2026, 12, 2, 3, 33, 20, tzinfo=UTC)


def replay(name: str, told: datetime = TOLD) -> list[ProviderEvent]:
    parser = events.OpenCodeEvents(SOURCE, clock=lambda: told)
    found: list[ProviderEvent] = []
    for data in EventParser().feed((RECORDINGS / name).read_bytes()):
        found += parser.feed(data).events
    return [event for event in found if event.kind not in ("generating", "usage_reported")]


def kinds(found: list[ProviderEvent]) -> list[tuple[str, str]]:
    return [(event.kind, event.evidence.rule) for event in found]


def test_a_limit_opencode_retries_past_is_retrying_and_its_turn_goes_on() -> None:
    found = replay("opencode-events-limit.sse")

    assert kinds(found)[:6] == [
        ("session_started", "session.created"),
        ("turn_started", "session.status busy"),
        ("turn_completed", "session.status idle"),
        ("turn_started", "session.status busy"),
        ("limit_retrying", "session.status retry attempt 1"),
        ("turn_completed", "session.status idle"),  # the retry after the reset went through
    ]
    retrying = found[4].limit
    assert retrying is not None
    assert (retrying.kind, retrying.retry_at) == ("rate", "2026-12-02T03:36:04.105Z")
    assert retrying.message is not None and retrying.message.startswith("Rate limit reached for mock-model")
    assert next_status("processing", "limit_retrying") is None  # still in its turn


def test_the_limit_it_gave_up_on_is_reached_with_the_reset_the_server_gave_not_an_error() -> None:
    found = replay("opencode-events-limit.sse")

    assert kinds(found)[6:] == [
        ("turn_started", "session.status busy"),
        *[("limit_retrying", f"session.status retry attempt {n}") for n in range(1, 6)],
        ("limit_reached", "session.error 429"),
        ("turn_started", "session.status busy"),  # `continue`, typed after the reset
        ("turn_completed", "session.status idle"),
    ]
    reached = found[12].limit
    # The answer's date (03:36:16) plus its x-ratelimit-reset-requests (11s), not its retry-after (1).
    assert reached == LimitReport(
        kind="rate",
        resets_at="2026-12-02T03:36:27Z",
        message="Rate limit reached for mock-model in organization org-mock on requests per day (RPD): Limit "
        "10000, Used 10000, Requested 1. Please try again in 11s. Visit "
        "https://platform.openai.com/account/rate-limits to learn more.",
    )
    assert next_status("processing", "limit_reached") == "idle"
    assert limits.limit_resume(reached) == LimitResume(how="text", keys=[], text="continue")


def test_a_reset_a_day_ahead_is_retried_a_day_later_with_the_reset_from_the_message() -> None:
    found = replay("opencode-events-limit-day-ahead.sse")

    assert kinds(found) == [
        ("session_started", "session.created"),
        ("turn_started", "session.status busy"),
        ("limit_retrying", "session.status retry attempt 1"),
    ]
    retrying = found[-1].limit
    assert retrying is not None
    # "Please try again in 24h59m58s", from when OpenCode told it.
    assert (retrying.retry_at, retrying.resets_at) == ("2026-12-03T04:33:18.130Z", "2026-12-03T04:33:18Z")
    assert limits.limit_resume(retrying) == LimitResume(how="wait", text=None)


def status_line(status: dict[str, object]) -> bytes:
    import json

    record = {"type": "session.status", "properties": {"sessionID": "ses_1", "status": status}}
    return json.dumps(record).encode()


def test_a_retry_for_an_overloaded_server_is_no_limit_and_a_host_back_mid_retry_starts_no_turn() -> None:
    parser = events.OpenCodeEvents(SOURCE, clock=lambda: TOLD)
    parser.session_id = "ses_1"
    overloaded = {"type": "retry", "attempt": 1, "message": "Provider is overloaded", "next": 1796182400000}

    assert parser.feed(status_line(overloaded)).events == []
    # Retrying, the session is in its turn: the busy of the next attempt starts none.
    assert parser.feed(status_line({"type": "busy"})).events == []


def test_the_reset_of_an_answer_without_windows_is_its_retry_after_or_its_message() -> None:
    sent = "Wed, 02 Dec 2026 03:36:16 GMT"
    clock = lambda: TOLD  # noqa: E731 - a constant clock

    assert limits.api_reset({"date": sent, "retry-after": "90"}, "", clock) == "2026-12-02T03:37:46Z"
    assert limits.api_reset({"date": sent, "retry-after-ms": "1500"}, "", clock) == "2026-12-02T03:36:18Z"
    later = "Wed, 02 Dec 2026 05:00:00 GMT"
    assert limits.api_reset({"date": sent, "retry-after": later}, "", clock) == "2026-12-02T05:00:00Z"
    assert limits.api_reset({}, "Please try again in 1m30.5s.", clock) == "2026-12-02T03:34:51Z"
    assert limits.api_reset({"date": sent}, "You exceeded your current quota", clock) is None
    # Two windows out: the later reset; a window with requests left does not count.
    windows = {
        "date": sent,
        "retry-after": "1",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "6m0s",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "1h2m3s",
        "x-ratelimit-remaining-images": "5",
        "x-ratelimit-reset-images": "9h0m0s",
    }
    assert limits.api_reset(windows, "", clock) == "2026-12-02T04:38:19Z"


def test_a_quota_is_a_usage_limit_and_any_other_429_a_rate_limit() -> None:
    assert limits.kind_in_text("You exceeded your current quota, please check your plan") == "usage"
    assert limits.kind_in_text("Weekly usage limit reached. It will reset in 2 days") == "usage"
    assert limits.kind_in_text("Too Many Requests") == "rate"
    assert limits.kind_in_text("Provider is overloaded") is None
    error = {"name": "APIError", "data": {"message": "slow down", "statusCode": 429, "responseHeaders": {}}}
    reached = limits.gave_up(SOURCE, error, "line", lambda: TOLD)
    assert reached is not None and reached.limit == LimitReport(kind="rate", resets_at=None, message="slow down")
    assert limits.gave_up(SOURCE, error | {"data": {"statusCode": 500}}, "line", lambda: TOLD) is None
