"""Starting a host from a command that needs one (`agent spawn`): never while the home's host stops."""

from pathlib import Path

import pytest

from wardian_core.errors import WardianError
from wardian_host.cli.live import connect_socket
from wardian_host.daemon.host_lock import HostLock, StartLock, running_host_pid


def test_a_command_starts_no_host_while_the_homes_host_is_stopping(wardian_home: Path) -> None:
    stopping = HostLock(wardian_home)  # held, with no socket served: a host past closing its socket
    stopping.acquire()
    try:
        with pytest.raises(WardianError) as refused:
            connect_socket(start_host=True)
        assert refused.value.code == "host_stopping" and "host stop" in (refused.value.hint or "")
        assert running_host_pid(wardian_home) == refused.value.details["pid"]
    finally:
        stopping.release()


def test_a_host_still_starting_is_not_taken_for_one_stopping(
    wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wardian_host.cli import host_starter

    started: list[list[str]] = []

    def start_process(argv: list[str], *_: object) -> str:
        started.append(argv)
        return "ready"

    monkeypatch.setattr(host_starter, "start_process", start_process)
    starting, lock = StartLock(wardian_home), HostLock(wardian_home)
    starting.acquire()
    lock.acquire()
    try:
        host_starter.start_detached(wardian_home, use_running=True)
    finally:
        lock.release()
        starting.release()
    assert len(started) == 1, "a host holding the start lock is starting: a command waits for it as before"


def test_a_second_host_writes_nothing_in_the_lock_of_the_first_whose_lock_file_was_removed(
    wardian_home: Path,
) -> None:
    first = HostLock(wardian_home)
    first.acquire()
    try:
        first.path.unlink()  # `rm -r run/` while the host runs
        with pytest.raises(WardianError) as refused:
            HostLock(wardian_home).acquire()
        assert refused.value.code == "request_failed" and refused.value.details["reason"] == "already_running"
        assert not first.path.exists(), "the second host wrote its pid in a lock file of its own"
    finally:
        first.release()
    second = HostLock(wardian_home)  # once the first has gone, a host starts as before
    second.acquire()
    try:
        assert first.path.read_text().strip().isdigit()
    finally:
        second.release()


def test_a_host_that_finished_starting_since_the_command_looked_is_used_not_refused(
    running_host: object, wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty spawns racing a host's start: one found no socket while the host started, and by its
    next look the host serves, with the start lock let go. That is a host to use, not one stopping."""
    from wardian_host.cli import host_starter

    def start_process(argv: list[str], *_: object) -> str:
        return "ready"  # a host started anyway meets the one serving, which the command then uses

    monkeypatch.setattr(host_starter, "start_process", start_process)
    host_starter.start_detached(wardian_home, use_running=True)  # the host lock held, the socket served
    assert running_host_pid(wardian_home) is not None
