"""Notices reaching an Apprise address through the real `wardian` command and a real host: a
changed `notify.urls` applies at once, a turn a CLI call waited on is not told, an error tells
its exit code and last line, and `notify test` says why nothing went out."""

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from polling import polled_until
from wardian_cli import WARDIAN
from webhook import Webhook

from wardian_host.daemon.host_lock import running_host_pid

RunWardian = Callable[..., Any]
Spawn = Callable[..., dict[str, Any]]
WaitStatus = Callable[..., dict[str, Any]]


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.close()


def _set(run_wardian: RunWardian, key: str, value: str) -> None:
    result = run_wardian("settings", "set", key, value)
    assert result.returncode == 0, result.stderr


def test_notify_urls_set_on_a_running_host_applies_at_once_and_errors_tell_code_and_line(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian, wardian_home: Path, webhook: Webhook
) -> None:
    spawn("shell", "bash", "--norc")
    wait_status("shell", "idle")
    host = running_host_pid(wardian_home)
    untold = run_wardian("notify", "test")
    assert untold.returncode == 0, untold.stderr
    answer = untold.json()["notify"]
    assert (answer["sent"], answer["addresses"], answer["reasons"]) == (False, 0, ["notify.urls is not set"])
    assert "wardian settings set notify.urls" in answer["hint"]

    _set(run_wardian, "notify.urls", webhook.address)
    spawn("failing", "bash", "--norc", "-c", "echo step one; echo 'fatal: disk full' >&2; exit 3")
    told = webhook.wait_for(1)
    assert (told[0]["title"], told[0]["message"]) == ("failing ended in error", "exit code 3: fatal: disk full")

    tested = run_wardian("notify", "test").json()["notify"]
    assert (tested["sent"], tested["addresses"], tested["reasons"], tested["hint"]) == (True, 1, [], None)
    assert webhook.wait_for(2)[1]["title"] == "Wardian test notice"
    assert running_host_pid(wardian_home) == host, "the settings applied without a restart"


def test_a_bad_address_gives_apprises_reason(run_wardian: RunWardian) -> None:
    _set(run_wardian, "notify.urls", "json://127.0.0.1:1/nobody-listens")
    answer = run_wardian("notify", "test").json()["notify"]
    assert (answer["sent"], answer["addresses"]) == (False, 1)
    assert any("Connection error" in reason for reason in answer["reasons"]), answer
    assert "notify.urls" in answer["hint"]
    _set(run_wardian, "notify.urls", "no-such-scheme://x")
    answer = run_wardian("notify", "test").json()["notify"]
    assert any("Unparseable URL" in reason for reason in answer["reasons"]), answer


def _waits_on_its_host(wait: subprocess.Popen[bytes]) -> bool:
    """The `agent wait` has connected to the host: it sends its request as it connects."""
    return bool(psutil.Process(wait.pid).net_connections(kind="unix"))


def test_turns_a_cli_call_waited_on_are_not_told_as_unseen(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian, webhook: Webhook, tmp_path: Path
) -> None:
    _set(run_wardian, "notify.unseen_turn_seconds", "0")  # a turn nobody looks at: told at once
    spawn("shell", "bash", "--norc")
    wait_status("shell", "idle")
    _set(run_wardian, "notify.urls", webhook.address)
    waited = run_wardian("send", "echo waited-$((6*7))", "--to", "shell", "--wait-until", "idle")
    assert waited.returncode == 0, waited.stderr
    asked = run_wardian("ask", "shell", "echo asked-$((6*7))", "--until", "output:asked-42", "--timeout", "20s")
    assert asked.returncode == 0, asked.stderr
    # The turn lasts until the `agent wait` is with the host: under load a new interpreter took
    # longer to start than the half second this turn once slept, and the wait missed it.
    release = tmp_path / "release"
    turn = f"until [ -e {release} ]; do sleep 0.05; done; echo watched-$((6*7))"
    assert run_wardian("send", turn, "--to", "shell").returncode == 0
    wait = subprocess.Popen(
        [WARDIAN, "agent", "wait", "shell", "--until", "idle", "--next", "--timeout", "20s"], stdout=subprocess.PIPE
    )
    polled_until(lambda: _waits_on_its_host(wait), "the wait connected to its host")
    release.touch()
    assert wait.wait(timeout=30) == 0
    # The one turn nobody waited on is told; the three before it never were.
    assert run_wardian("send", "echo unseen-$((6*7))", "--to", "shell").returncode == 0
    told = webhook.wait_for(1)
    tested = run_wardian("notify", "test").json()["notify"]  # sent after any notice raised before it
    assert tested["sent"] is True
    told = webhook.wait_for(2)
    assert [notice["title"] for notice in told] == ["shell finished a turn", "Wardian test notice"]
