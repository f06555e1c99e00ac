"""`agent watch --follow` in the CLI, across hosts: it asks the next host from the last cursor it
printed, and output the agent printed while no host ran that outgrew the next host's buffer is
told as a `lagged` item, as a stream that fell behind is, never as the end of the follow."""

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from wardian_core.control.client import CLOSED_REASON, app_not_running
from wardian_core.errors import WardianError
from wardian_host.answers import host_return
from wardian_host.cli import agent_watch


class _Host:
    """A host as the follower meets it: the items it streams, then the error that ends it."""

    def __init__(self, items: list[dict[str, Any]], end: WardianError | None = None) -> None:
        self.items, self.end = items, end
        self.asked: list[dict[str, Any]] = []

    def __enter__(self) -> "_Host":
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def exchange(
        self, kind: str, params: dict[str, Any], timeout: float | None
    ) -> Generator[dict[str, Any], None, Any]:
        self.asked.append(params)
        yield from self.items
        if self.end is not None:
            raise self.end
        return {"cursor": 0}


def _expired(since: int, oldest: int) -> WardianError:
    return WardianError("cursor_expired", "expired", "hint", {"since": since, "oldest_cursor": oldest})


def _follow(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *hosts: _Host) -> list[Any]:
    queue = list(hosts)
    monkeypatch.setattr(agent_watch, "connect", lambda: queue.pop(0))
    monkeypatch.setattr(host_return, "await_next_host", lambda seconds: None)
    agent_watch.follow_across_restarts({"target": "a1", "since": 0, "follow": True})
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_output_outgrowing_the_next_hosts_buffer_is_told_as_lagged_and_followed_on(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _Host([{"output": "a", "cursor": 100}], app_not_running(wardian_home, CLOSED_REASON))
    refusing = _Host([], _expired(100, 5000))
    next_one = _Host([{"output": "b", "cursor": 5001}])
    printed = _follow(monkeypatch, capsys, first, refusing, next_one)
    lagged = {"cursor": 5000, "missed_from": 100, "dropped_bytes": 4900, "dropped_events": 0}
    assert printed == [{"output": "a", "cursor": 100}, {"lagged": lagged}, {"output": "b", "cursor": 5001}]
    assert [host.asked[0]["since"] for host in (first, refusing, next_one)] == [0, 100, 5000]


def test_an_expired_cursor_of_the_first_host_is_the_users_error(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(WardianError) as refused:
        _follow(monkeypatch, capsys, _Host([], _expired(0, 5000)))
    assert refused.value.code == "cursor_expired"


def test_a_next_host_refusing_its_first_connection_is_waited_for_again(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _Host([{"output": "a", "cursor": 100}], app_not_running(wardian_home, CLOSED_REASON))
    refusing = _Host([], app_not_running(wardian_home, "ConnectionRefusedError"))
    next_one = _Host([{"output": "b", "cursor": 101}])
    printed = _follow(monkeypatch, capsys, first, refusing, next_one)
    assert [item["output"] for item in printed] == ["a", "b"]
