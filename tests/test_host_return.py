"""Who waits for the next host: a command that met none while the agents go on in the terminal
server (a restart or a crash), never one after `host stop` or one whose request a host took."""

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from wardian_core.control.client import CLOSED_REASON, ControlClient, app_not_running
from wardian_core.errors import WardianError
from wardian_core.process_locks import take_exclusive
from wardian_host.answers import host_return
from wardian_host.answers.host_return import between_hosts
from wardian_host.terminal.server.process import lock_path


def test_no_host_while_the_terminal_server_runs_is_between_hosts(wardian_home: Path) -> None:
    refused = app_not_running(wardian_home, "no socket")
    assert not between_hosts(refused)  # stopped: no server either, nobody to wait for

    held = take_exclusive(lock_path(wardian_home))  # this process stands for the server
    assert isinstance(held, int)
    try:
        assert between_hosts(refused)
        # A host that took the request and went away may have done it: not to be given again.
        assert not between_hosts(app_not_running(wardian_home, CLOSED_REASON))
    finally:
        os.close(held)


class _Host:
    """A host as `across_restarts` meets it: the stream items it sends, then its answer or its end."""

    def __init__(self, items: list[dict[str, Any]], end: Any) -> None:
        self.items, self.end = items, end
        self.asked: list[str] = []

    def __enter__(self) -> "_Host":
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def exchange(
        self, kind: str, params: dict[str, Any], timeout: float | None
    ) -> Generator[dict[str, Any], None, Any]:
        self.asked.append(kind)
        yield from self.items
        if isinstance(self.end, WardianError):
            raise self.end
        return self.end


def _met(monkeypatch: pytest.MonkeyPatch, *meetings: _Host | WardianError) -> list[float | None]:
    """`connect()` meets each of `meetings` in turn (a host, or the error a refused connect raises);
    the waits for a next host are counted, and return at once."""
    queue = list(meetings)

    def connect() -> _Host:
        met = queue.pop(0)
        if isinstance(met, WardianError):
            raise met
        return met

    awaited: list[float | None] = []
    monkeypatch.setattr(host_return, "connect", connect)
    monkeypatch.setattr(host_return, "await_next_host", awaited.append)
    return awaited


def _again(heard: dict[str, Any], remaining: float | None) -> tuple[str, dict[str, Any]]:
    return "agent.wait", {"arrived_after": heard["waiting_after"], "timeout": remaining}


def test_a_next_host_that_refuses_the_first_connection_is_waited_for_again(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI saw a `send --wait-until` give up after a kill -9: a host answered the wait for the next
    one, then refused the request that followed. Until its time is spent, the wait goes on."""
    first = _Host([{"waiting_after": 7}], app_not_running(wardian_home, CLOSED_REASON))
    next_one = _Host([], {"status": "idle"})
    awaited = _met(monkeypatch, first, app_not_running(wardian_home, "ConnectionRefusedError"), next_one)
    heard: dict[str, Any] = {}
    answer = host_return.across_restarts(("send", {}), 30.0, heard, _again, 1.0)
    assert answer == {"status": "idle"} and heard == {"waiting_after": 7}
    assert (first.asked, next_one.asked, len(awaited)) == (["send"], ["agent.wait"], 2)


def test_no_host_at_the_first_connection_is_no_wait(wardian_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    awaited = _met(monkeypatch, app_not_running(wardian_home, "ConnectionRefusedError"))
    with pytest.raises(WardianError) as refused:
        host_return.across_restarts(("send", {}), 30.0, {}, _again, 1.0)
    assert refused.value.details["reason"] == "ConnectionRefusedError" and awaited == []


class _Dying:
    """A connection to the listening socket of a host still dying: its first request is cut off."""

    def __init__(self, home: Path, answers: bool) -> None:
        self.home, self.answers = home, answers

    def __enter__(self) -> "_Dying":
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def request(self, kind: str, params: None, timeout: float | None) -> dict[str, Any]:
        if not self.answers:
            raise app_not_running(self.home, CLOSED_REASON)
        return {"pid": 1}


def test_the_next_host_is_one_that_answers_not_a_dying_hosts_socket(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connections = [_Dying(wardian_home, answers=False), _Dying(wardian_home, answers=True)]
    met: list[_Dying] = []

    def connect(home: Path, timeout: float) -> _Dying:
        met.append(connections.pop(0))
        return met[-1]

    monkeypatch.setattr(ControlClient, "connect", connect)
    host_return.await_next_host(5.0)
    assert [connection.answers for connection in met] == [False, True]
