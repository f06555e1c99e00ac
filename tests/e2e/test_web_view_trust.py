"""The web view a person can read and trust (issue 49, item 2), in a real browser (Debian's
chromium, driven by Playwright) against a real host: open pages never hold up the host's stop
or restart and come back live afterwards, tiles show whole lines at a readable size, Escape
reaches an agent only in the focused view, Kill and Clear ask first, an `error` tile says how
its agent ended."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browser import chromium_page, open_view
from host_restarts import next_host

from wardian_core import paths
from wardian_core.control.client import ControlClient
from wardian_host.daemon.host_lock import running_host_pid

RunWardian = Callable[..., Any]
Spawn = Callable[..., dict[str, Any]]
WaitStatus = Callable[..., dict[str, Any]]
LIVE = "document.getElementById('connection').textContent === 'live'"


def web_address(run_wardian: RunWardian) -> str:
    result = run_wardian("web")
    assert result.returncode == 0, result.stderr
    url: str = result.json()["web"]["url"]
    return url


def test_a_restart_and_a_stop_with_two_pages_open_complete_and_the_pages_come_back_live(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian, wardian_home: Path
) -> None:
    spawn("before", "bash", "--norc")
    wait_status("before", "idle")
    url = web_address(run_wardian)
    with chromium_page() as first:
        open_view(first, url)
        second = first.context.new_page()  # the same person's second tab: its session's cookie
        second.goto(url.split("?")[0])
        second.wait_for_function(LIVE)
        # The restart's whole wait is this: each open page's WebSocket once held the old host
        # for 45 s (until its heartbeat gave up), past this time, and the CLI left no host.
        restarted = run_wardian("host", "restart", env={"WARDIAN_CONTROL_TIMEOUT": "15"})
        assert restarted.returncode == 0, restarted.stderr
        # The pages reconnect to the new host with the session they had: a tile the new host
        # adds shows on both without a reload or a new login.
        after = spawn("after", "bash", "--norc")
        for page in (first, second):
            page.wait_for_selector(f"#agent-{after['uuid']}")
            page.wait_for_function(LIVE)
        kept = (paths.run_dir(wardian_home) / "web-sessions.json").read_text()
        cookie = next(c["value"] for c in first.context.cookies() if c["name"] == "wardian_web")
        assert cookie not in kept and len(json.loads(kept)["sessions"]) == 1  # a digest, not the cookie
        stopped = run_wardian("host", "stop", env={"WARDIAN_CONTROL_TIMEOUT": "15"})
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.json()["host"]["stopped"] is True
        first.wait_for_function("document.getElementById('connection').textContent === 'reconnecting…'")


def test_a_host_stopped_for_a_restart_starts_the_next_one_even_when_the_cli_gave_up(
    run_wardian: RunWardian, wardian_home: Path
) -> None:
    assert run_wardian("host", "start").returncode == 0
    old = running_host_pid(wardian_home)
    assert old is not None
    # The first half of `host restart`, after which its CLI ran out of time (a slow stop) and
    # started nothing: the home once had no host from then on.
    with ControlClient.connect(wardian_home) as client:
        assert client.request("host.stop", {"keep_agents": True}, 20)["agents_kept"] is True
    new = next_host(wardian_home, old)
    assert new != old and run_wardian("host", "status").json()["host"]["pid"] == new
