"""The polling that stands in for inotify: when it is used, how often it looks, and that one timer serves all."""

import asyncio
from pathlib import Path
from typing import Any

import pytest

from wardian_host.output import polling
from wardian_host.output.file_tail import FileTail
from wardian_host.output.inotify import open_inotify
from wardian_host.output.polling import FILE_CEILING_SECONDS, QUICK_SECONDS, Poller, PollWatch, shared_poller


def test_open_inotify_is_none_under_the_portable_backend_so_linux_follows_files_as_macos_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def opened() -> bool:
        notify = open_inotify(asyncio.get_running_loop(), lambda folder, name, mask: None)
        if notify is None:
            return False
        notify.close()
        return True

    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")
    assert asyncio.run(opened()) is False
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "linux")
    assert asyncio.run(opened()) is True


def test_a_quiet_check_backs_off_to_its_ceiling_and_a_change_brings_it_back() -> None:
    answers = iter([False, False, False, False, True, False])

    async def intervals() -> list[float]:
        poller = Poller(asyncio.get_running_loop())
        watch = poller.add(lambda: next(answers), FILE_CEILING_SECONDS)
        seen = [watch.interval]
        for _ in range(6):
            watch.due = 0  # due now; the tick is driven by hand, not awaited
            poller._tick()
            seen.append(watch.interval)
        poller.remove(watch)
        return seen

    assert asyncio.run(intervals()) == [
        QUICK_SECONDS,
        QUICK_SECONDS * 2,
        QUICK_SECONDS * 4,
        FILE_CEILING_SECONDS,
        FILE_CEILING_SECONDS,
        QUICK_SECONDS,
        QUICK_SECONDS * 2,
    ]


def test_a_failing_check_leaves_the_others_polled_and_a_closed_one_is_not() -> None:
    async def checked() -> tuple[list[str], int]:
        poller = Poller(asyncio.get_running_loop())
        ran: list[str] = []

        def check(name: str, outcome: Exception | None = None) -> None:
            def look() -> bool:
                ran.append(name)
                if name == "closing":
                    poller.remove(victim)  # a line handled here closed another follower
                if outcome is not None:
                    raise outcome
                return False

            watches[name] = poller.add(look, FILE_CEILING_SECONDS)

        watches: dict[str, PollWatch] = {}
        check("failing", OSError("gone"))
        check("plain")
        check("closing")
        check("victim")
        victim = watches["victim"]
        for watch in watches.values():
            watch.due = 0
        poller._tick()
        left = len(poller)
        for watch in watches.values():
            poller.remove(watch)
        return ran, left

    ran, left = asyncio.run(checked())

    assert ran == ["failing", "plain", "closing"], "one that raised stopped no other; one closed meanwhile is not run"
    assert left == 3


def test_followed_files_share_one_timer_and_the_poller_goes_with_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")

    async def scenario() -> tuple[int, int, bool]:
        loop = asyncio.get_running_loop()
        timers: list[float] = []
        call_at = loop.call_at

        def counting_call_at(when: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
            timers.append(when)
            return call_at(when, callback, *args)

        monkeypatch.setattr(loop, "call_at", counting_call_at)
        tails = [FileTail(loop, tmp_path / f"agent-{index}.jsonl", lambda line: None) for index in range(50)]
        for tail in tails:
            tail.start()
        followed = len(shared_poller(loop))
        for tail in tails:
            tail.close()
        return followed, len(timers), loop in polling._POLLERS

    followed, timers, kept = asyncio.run(scenario())

    assert followed == 50
    assert timers == 1, "one timer for 50 followed files"
    assert not kept, "the loop's poller went with its last check"
