"""Which status changes become notices, when, and to whom: once per occurrence."""

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from wardian_core.notices import Notice
from wardian_host.notify.rules import NoticeRules, last_printed_line
from wardian_host.notify.sinks import Sinks, addresses


class Handle:
    def __init__(self, callback: Callable[..., None], args: tuple[Any, ...]) -> None:
        self.callback, self.args, self.cancelled = callback, args, False

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        assert not self.cancelled
        self.callback(*self.args)


class ManualLoop:
    """The loop's timers, fired by the test: the delay's passing is an event, not a sleep."""

    def __init__(self) -> None:
        self.timers: list[tuple[float, Handle]] = []

    def call_later(self, delay: float, callback: Callable[..., None], *args: Any) -> Handle:
        handle = Handle(callback, args)
        self.timers.append((delay, handle))
        return handle


@pytest.fixture
def loop() -> ManualLoop:
    return ManualLoop()


def _rules(loop: ManualLoop, told: list[Notice]) -> NoticeRules:
    rules = NoticeRules(loop, lambda: 45.0)  # type: ignore[arg-type]  # only call_later is used
    rules.subscribe(told.append)
    return rules


def test_waiting_and_error_are_told_at_once_each_occurrence_its_own(loop: ManualLoop) -> None:
    told: list[Notice] = []
    rules = _rules(loop, told)
    rules.status_changed("u1", "alpha", "processing", "action_required", {"dialog": "exec", "line": "rm -rf x"})
    rules.status_changed("u1", "alpha", "action_required", "processing", {})
    rules.status_changed("u1", "alpha", "processing", "action_required", {"reason": "tool"})
    rules.status_changed("u2", "beta", "processing", "error", {"reason": "parse failure"})
    assert [(notice.kind, notice.agent, notice.uuid) for notice in told] == [
        ("waiting", "alpha", "u1"),
        ("waiting", "alpha", "u1"),
        ("error", "beta", "u2"),
    ]
    assert (told[0].title, told[0].body, told[1].body) == ("alpha is waiting for you", "exec", "tool")
    assert len({notice.id for notice in told}) == 3
    assert loop.timers == []


def test_a_finished_turn_is_told_only_once_its_delay_passed_unseen(loop: ManualLoop) -> None:
    told: list[Notice] = []
    rules = _rules(loop, told)
    rules.status_changed("u1", "alpha", "processing", "idle", {})
    rules.status_changed("u2", "beta", "processing", "idle", {})
    rules.status_changed("u3", "gamma", "processing", "idle", {})
    assert told == [] and [delay for delay, _ in loop.timers] == [45.0] * 3
    rules.looked_at("u2")  # a person enlarged beta's tile
    rules.status_changed("u3", "gamma", "idle", "processing", {})  # gamma's next turn began
    for _, handle in loop.timers:
        if not handle.cancelled:
            handle.fire()
    assert [(notice.kind, notice.agent) for notice in told] == [("unseen_turn", "alpha")]
    assert [handle.cancelled for _, handle in loop.timers] == [False, True, True]


def test_a_failing_listener_does_not_silence_the_others(loop: ManualLoop) -> None:
    told: list[Notice] = []
    rules = NoticeRules(loop, lambda: 1.0)  # type: ignore[arg-type]  # only call_later is used

    def broken(_: Notice) -> None:
        raise RuntimeError("a sink that broke")

    rules.subscribe(broken)
    unsubscribe = rules.subscribe(told.append)
    rules.status_changed("u1", "alpha", "idle", "error", {})
    unsubscribe()
    rules.status_changed("u1", "alpha", "idle", "error", {})
    assert len(told) == 1


def test_sinks_tell_plugins_every_notice_and_addresses_none_of_the_tests() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    sinks = Sinks(lambda: None, lambda hook, **kwargs: calls.append((hook, kwargs)))
    notice = Notice(id="n1", kind="test", agent="", uuid="", title="t", body="b", at="2026-01-01T00:00:00Z")
    sinks.told(notice)
    assert calls == [("notice_raised", {"notice": notice})]
    assert addresses(" json://a/x, ntfy://topic\nmailto://me@example.org ") == [
        "json://a/x",
        "ntfy://topic",
        "mailto://me@example.org",
    ]
    assert addresses(None) == []


def test_the_delay_is_read_at_each_turns_end_so_a_changed_setting_applies_at_once(loop: ManualLoop) -> None:
    delay = [45.0]
    rules = NoticeRules(loop, lambda: delay[0])  # type: ignore[arg-type]  # only call_later is used
    rules.status_changed("u1", "alpha", "processing", "idle", {})
    delay[0] = 0.0  # `wardian settings set notify.unseen_turn_seconds 0` on the running host
    rules.status_changed("u2", "beta", "processing", "idle", {})
    assert [seconds for seconds, _ in loop.timers] == [45.0, 0.0]


def test_a_turn_a_cli_call_waited_on_is_not_told_as_unseen(loop: ManualLoop) -> None:
    told: list[Notice] = []
    rules = _rules(loop, told)
    rules.status_changed("u1", "alpha", "processing", "idle", {}, turn_awaited=True)
    assert loop.timers == [] and told == []
    rules.status_changed("u1", "alpha", "processing", "error", {"exit_code": 1}, turn_awaited=True)
    assert [notice.kind for notice in told] == ["error"]  # an error is news even to a waiting call


def test_an_error_notice_carries_the_exit_code_and_the_last_line_printed(loop: ManualLoop) -> None:
    told: list[Notice] = []
    rules = _rules(loop, told)
    tail = "building\r\n\x1b[31mfatal: disk full\x1b[0m\r\n\r\n  \r\n"
    rules.status_changed("u1", "alpha", "processing", "error", {"exit_code": 3, "output_tail": tail})
    rules.status_changed("u2", "beta", "processing", "error", {"line": "Error: quota", "reason": "api"})
    assert [(notice.exit_code, notice.last_line, notice.body) for notice in told] == [
        (3, "fatal: disk full", "exit code 3: fatal: disk full"),
        (None, "Error: quota", "Error: quota"),
    ]
    assert last_printed_line("") is None and last_printed_line(None) is None


def test_notify_test_without_an_address_says_so_with_a_hint() -> None:
    sinks = Sinks(lambda: None, lambda hook, **kwargs: None)
    answer = asyncio.run(sinks.send(_test_notice()))
    assert (answer["sent"], answer["addresses"], answer["reasons"]) == (False, 0, ["notify.urls is not set"])
    assert "wardian settings set notify.urls" in answer["hint"]


def test_a_bad_address_gives_apprises_reason() -> None:
    sinks = Sinks(lambda: "not-an-address", lambda hook, **kwargs: None)
    answer = asyncio.run(sinks.send(_test_notice()))
    assert (answer["sent"], answer["addresses"]) == (False, 1)
    assert any("not-an-address" in reason for reason in answer["reasons"]), answer
    assert "notify.urls" in answer["hint"]


def _test_notice() -> Notice:
    return Notice(id="n1", kind="test", agent="", uuid="", title="t", body="b", at="2026-01-01T00:00:00Z")
