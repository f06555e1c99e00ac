"""The web view a person can read and trust (issue 49, item 2), in a real browser (Debian's
chromium, driven by Playwright) against a real host: open pages never hold up the host's stop
or restart and come back live afterwards, tiles show whole lines at a readable size, Escape
reaches an agent only in the focused view, Kill and Clear ask first, an `error` tile says how
its agent ended."""

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import LIVE, chromium_page, open_view, web_address

from wardian_core import paths

RunWardian = Callable[..., Any]
Spawn = Callable[..., dict[str, Any]]
WaitStatus = Callable[..., dict[str, Any]]


def test_a_restart_and_a_stop_with_two_pages_open_complete_and_the_pages_come_back_live(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian, wardian_home: Path
) -> None:
    spawn("before", "bash", "--norc")
    wait_status("before", "idle")
    with chromium_page() as first:
        url = open_view(first, lambda: web_address(run_wardian))
        second = first.context.new_page()  # the same person's second tab: its session's cookie
        second.goto(url.split("?")[0])
        second.wait_for_function(LIVE)
        # Someone else with the used address is refused, and open_view says so at once.
        browser = first.context.browser
        assert browser is not None
        with pytest.raises(AssertionError, match="refused the login: 401"):
            open_view(browser.new_context().new_page(), lambda: url)
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


LONG_LINE = "printf '%s\\n' \"$(printf 'x%.0s' $(seq 1 119))E\"; exec cat"
TILE_FACTS = """(uuid) => {
  const tile = document.querySelector(`#agent-${uuid}`);
  const rows = tile.querySelector('.xterm-rows'), box = tile.querySelector('.terminal-box');
  const term = window.wardianView.tiles.get(uuid).term;
  return { font: parseFloat(getComputedStyle(rows).fontSize), cols: term.cols,
           screen: tile.querySelector('.xterm-screen').offsetWidth, box: box.clientWidth,
           line: term.buffer.active.getLine(0).translateToString(true) };
}"""


def test_six_tiles_at_1400_by_900_show_whole_lines_at_a_readable_size_and_an_error_says_how_it_ended(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian
) -> None:
    agents = [spawn(f"wide-{index}", "bash", "-c", LONG_LINE) for index in range(5)]
    broken = spawn("broken", "bash", "-c", "echo compiling; echo 'fatal: out of memory'; read; exit 3")
    for index in range(5):
        wait_status(f"wide-{index}", "idle")
    wait_status("broken", "idle")
    with chromium_page(1400, 900) as page:
        open_view(page, lambda: web_address(run_wardian))
        first = agents[0]["uuid"]
        page.wait_for_function(f"document.querySelector('#agent-{first} .xterm-rows')?.textContent.includes('xE')")
        facts = page.evaluate(TILE_FACTS, first)
        assert facts["font"] >= 11 and facts["cols"] >= 120  # the PTY's every column
        assert 0 < facts["screen"] <= facts["box"]  # no column cut off by the tile
        assert facts["line"] == "x" * 119 + "E"
        assert "null" not in page.inner_text("body")
        # An agent that ended in error shows its exit code and what it printed last.
        run_wardian("send", "", "--to", "broken")  # its `read` returns: it exits 3
        error_tile = f"#agent-{broken['uuid']}[data-status=error]"
        page.wait_for_selector(f"{error_tile} .exit-code")
        assert page.inner_text(f"{error_tile} .exit-code") == "exited with code 3"
        assert page.inner_text(f"{error_tile} .last-output").endswith("fatal: out of memory")
        assert "usage: none, a generic command reports no tokens or cost" in page.inner_text(error_tile)
        assert "null" not in page.inner_text("body")


def test_kill_asks_first_and_escape_reaches_the_agent_only_in_the_focused_view(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian
) -> None:
    # stty echoctl shows an Escape that reaches the PTY as ^[ in the agent's line.
    echo = spawn("echo", "bash", "-c", "stty echoctl; exec cat")
    wait_status("echo", "idle")
    tile = f"#agent-{echo['uuid']}"
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        page.wait_for_selector(f"{tile} .xterm-rows")
        page.click(f"{tile} .tile-name")
        page.keyboard.press("Escape")  # outside the focused view: nowhere
        page.click(f"{tile} .terminal-box")
        page.wait_for_selector("#enlarged:not([hidden])")
        assert "Shift+Esc" in page.inner_text("#shrink")
        page.keyboard.type("a")
        page.keyboard.press("Escape")  # in the focused view: the agent's
        page.keyboard.type("b")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#enlarged-terminal .xterm-rows').textContent.includes('a^[b')")
        page.keyboard.press("Shift+Escape")  # the way out, which the agent never sees
        page.wait_for_selector("#enlarged", state="hidden")
        # The PTY echoed one Escape, between a and b: none before a (the one pressed outside),
        # none after b (Shift+Escape).
        watched = run_wardian("agent", "watch", "echo").json()["watch"]["output"]
        assert watched.count("^[") == 1 and "a^[b" in watched

        dialogs: list[str] = []

        def answer(dialog: Any, accept: bool) -> None:
            dialogs.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        page.once("dialog", lambda dialog: answer(dialog, False))
        page.click(f"{tile} button[data-action='agent.kill']")
        assert dialogs and dialogs[0].startswith("Kill echo?")
        assert run_wardian("agent", "show", "echo", "--fields", "status").json()["agent"]["status"] != "off"
        page.once("dialog", lambda dialog: answer(dialog, True))
        page.click(f"{tile} button[data-action='agent.kill']")
        page.wait_for_selector(f"{tile}[data-status=off]")
        assert len(dialogs) == 2


def test_the_view_keeps_its_port_across_restarts_and_says_so_when_another_process_took_it(
    run_wardian: RunWardian,
) -> None:
    port = int(web_address(run_wardian).split(":")[2].split("/")[0])
    assert run_wardian("host", "restart").returncode == 0
    kept = run_wardian("web")
    assert kept.json()["web"]["port"] == port and "port_taken" not in kept.json()["web"]
    assert run_wardian("host", "stop").returncode == 0
    with socket.socket() as squatter:  # another program takes the port while no host runs
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        moved = run_wardian("web")
        assert moved.returncode == 0, moved.stderr
        answer = moved.json()["web"]
        assert answer["port"] != port and answer["port_taken"] == port
        assert f"warning: port {port}, where the web view served before, is taken" in moved.stderr
