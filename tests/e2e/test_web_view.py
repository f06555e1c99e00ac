"""The web view in a real browser (Debian's chromium, driven by Playwright) against a real host.

The approval cases use the example provider, a fake CLI: they prove the view's own plumbing
(the button takes the path `send --approval` takes); the real CLIs' dialogs are proven in
tests/real_cli/test_web_approval.py.
"""

import http.client
import http.server
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium_page, drawn_text, open_view, typed_and_focused, web_address
from webhook import Webhook

from wardian_core import paths
from wardian_host.daemon.host_lock import running_host_pid

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FAKE_CLIS = Path(__file__).parent / "fake_clis"
RunWardian = Callable[..., Any]
Spawn = Callable[..., dict[str, Any]]
WaitStatus = Callable[..., dict[str, Any]]
EXAMPLE_ENV = {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.close()


def test_the_grid_shows_each_agent_live_and_typing_reaches_the_pty(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian, tmp_path: Path
) -> None:
    run_wardian("settings", "set", "notify.unseen_turn_seconds", "0")  # a turn nobody looks at: told at once
    shell = spawn("shell", "bash", "--norc")
    sleeper = spawn("sleeper", "bash", "-c", "echo sleeping; exec sleep 600")
    wait_status("shell", "idle")
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        page.wait_for_selector(f"#agent-{shell['uuid']}[data-status=idle]")
        page.wait_for_selector(f"#agent-{sleeper['uuid']}[data-status=idle]")
        tile = page.inner_text(f"#agent-{shell['uuid']}")
        assert "shell" in tile and "Coder" in tile and "generic" in tile
        # A change the host makes shows without a reload.
        assert run_wardian("agent", "kill", "sleeper").returncode == 0
        page.wait_for_selector(f"#agent-{sleeper['uuid']}[data-status=off]")
        page.screenshot(path=tmp_path / "grid.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: one column, nothing wider
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.is_visible(f"#agent-{shell['uuid']} button[data-action='agent.kill']")
        page.screenshot(path=tmp_path / "phone.png", full_page=True)
        page.set_viewport_size({"width": 1400, "height": 900})

        page.click(f"#agent-{shell['uuid']} .terminal-box")
        page.wait_for_selector("#enlarged:not([hidden])")
        page.keyboard.type("echo typed-$((6*7))")
        page.keyboard.press("Enter")
        # Only bash's answer draws typed-42: the keys reached the PTY, its echo the page.
        page.wait_for_function(
            "document.querySelector('#enlarged-terminal .xterm-rows').textContent.includes('typed-42')"
        )
        assert "typed-42" in drawn_text(page, "#enlarged-terminal")
        page.click("#shrink")

        # A person's spawn, send, pause and resume, from the page's own forms and buttons.
        page.fill("#spawn [name=provider]", "generic")
        page.fill("#spawn [name=class]", "Coder")
        page.fill("#spawn [name=workspace]", str(tmp_path))
        page.fill("#spawn [name=name]", "formed")
        page.fill("#spawn [name=args]", "bash --norc")
        page.click("#spawn button[type=submit]")
        formed = wait_status("formed", "idle")
        tile = f"#agent-{formed['uuid']}"
        page.fill(f"{tile} .send input", "echo sent-$((2*3))")
        page.click(f"{tile} .send button")
        page.wait_for_function(f"document.querySelector('{tile} .xterm-rows').textContent.includes('sent-6')")
        page.wait_for_function("window.__notices.some((notice) => notice.title === 'formed finished a turn')")
        page.click(f"{tile} button[data-action='agent.pause']")
        page.wait_for_selector(f"{tile}[data-status=off]")
        page.click(f"{tile} button[data-action='agent.resume']")
        page.wait_for_selector(f"{tile}:not([data-status=off])")
    assert "typed-42" in run_wardian("agent", "watch", "shell").json()["watch"]["output"]
    assert formed["class"] == "Coder" and formed["workspace"] == str(tmp_path)
    assert (tmp_path / "grid.png").stat().st_size > 0


def test_an_agent_waiting_comes_first_approve_runs_the_tool_reject_does_not_and_each_is_told_once(
    provider_packages: Path,
    spawn: Spawn,
    wait_status: WaitStatus,
    run_wardian: RunWardian,
    workspace: Path,
    webhook: Webhook,
    tmp_path: Path,
) -> None:
    run_wardian("settings", "set", "notify.urls", f"json://127.0.0.1:{webhook.port}/hook")
    run_wardian("settings", "set", "notify.unseen_turn_seconds", "3600")
    example = run_wardian(
        "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", "zz-asker",
        "--workspace", str(workspace), env=EXAMPLE_ENV,
    )  # fmt: skip
    assert example.returncode == 0, example.stderr
    asker = example.json()["agent"]
    plain = spawn("aa-plain", "bash", "--norc")
    wait_status("zz-asker", "idle")
    wait_status("aa-plain", "idle")
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        first = "document.querySelector('#grid').firstElementChild.id"
        page.wait_for_selector(f"#agent-{asker['uuid']}[data-status=idle]")
        assert page.evaluate(first) == f"agent-{plain['uuid']}"

        run_wardian("send", "tool touch accepted.txt", "--to", "zz-asker")
        page.wait_for_selector(f"#agent-{asker['uuid']}[data-status=action_required] button.approve")
        assert page.evaluate(first) == f"agent-{asker['uuid']}"
        page.screenshot(path=tmp_path / "approval.png", full_page=True)
        assert not (workspace / "accepted.txt").exists()
        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"#agent-{asker['uuid']} button.approve")
        assert answered.value.json()["result"]["left_action_required"] is True
        assert (workspace / "accepted.txt").exists()
        wait_status("zz-asker", "idle")
        told = webhook.wait_for(1)
        page.wait_for_function("window.__notices.length >= 1")

        run_wardian("send", "tool touch rejected.txt", "--to", "zz-asker")
        page.wait_for_selector(f"#agent-{asker['uuid']}[data-status=action_required] button.reject")
        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"#agent-{asker['uuid']} button.reject")
        assert answered.value.json()["result"]["left_action_required"] is True
        wait_status("zz-asker", "idle")
        told = webhook.wait_for(2)
        page.wait_for_function("window.__notices.length >= 2")
        notices = page.evaluate("window.__notices")
    assert not (workspace / "rejected.txt").exists()
    assert (tmp_path / "approval.png").stat().st_size > 0
    # One notification and one webhook call per approval asked for: never repeated.
    assert [notice["title"] for notice in notices] == ["zz-asker is waiting for you"] * 2
    assert len({notice["tag"] for notice in notices}) == 2
    assert all(notice["data"]["link"] == f"#agent-{asker['uuid']}" for notice in notices)
    assert [call["title"] for call in told] == ["zz-asker is waiting for you"] * 2
    tested = run_wardian("notify", "test").json()["notify"]
    assert (tested["sent"], tested["addresses"], tested["notice"]["kind"]) == (True, 1, "test")
    assert webhook.wait_for(3)[2]["title"] == "Wardian test notice"


def _get(port: int, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers=headers)
    return connection.getresponse()


def _websocket_headers(port: int, cookie: str, origin: str) -> dict[str, str]:
    return {
        "Host": f"127.0.0.1:{port}",
        "Cookie": cookie,
        "Origin": origin,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }


def test_the_view_refuses_no_cookie_a_foreign_origin_or_host_and_logs_no_secret(
    run_wardian: RunWardian, wardian_home: Path
) -> None:
    for not_one_address in ("my laptop", "0.0.0.0"):
        refused = run_wardian("web", "--listen", not_one_address)
        assert refused.returncode == 1 and refused.error()["code"] == "usage"
    url = web_address(run_wardian)
    port = int(url.split(":")[2].split("/")[0])
    login = url[url.index("/?") :]
    host = {"Host": f"127.0.0.1:{port}"}
    assert _get(port, "/", host).status == 401
    assert _get(port, "/static/app.js", host).status == 401
    logged_in = _get(port, login, host)
    assert logged_in.status == 303
    set_cookie = logged_in.headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    cookie = set_cookie.split(";")[0]
    assert _get(port, login, host).status == 401  # a login works once
    assert _get(port, "/", host | {"Cookie": cookie}).status == 200
    # DNS rebinding: the right cookie, a name that is not this view's.
    assert _get(port, "/", {"Host": f"attacker.example:{port}", "Cookie": cookie}).status == 403
    good_origin = f"http://127.0.0.1:{port}"
    assert _get(port, "/ws", _websocket_headers(port, cookie, "http://attacker.example")).status == 403
    assert _get(port, "/ws", _websocket_headers(port, "", good_origin)).status == 401
    assert _get(port, "/ws", _websocket_headers(port, cookie, good_origin)).status == 101
    post = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = json.dumps({"kind": "agent.kill", "params": {"target": "nobody"}})
    post.request("POST", "/api/action", body, host | {"Cookie": cookie, "Origin": "http://attacker.example"})
    assert post.getresponse().status == 403
    # The page may ask only for what a person does to agents: never to stop the host.
    stop = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    stop_body = json.dumps({"kind": "host.stop", "params": {}})
    stop.request("POST", "/api/action", stop_body, host | {"Cookie": cookie, "Origin": good_origin})
    refused = stop.getresponse()
    assert (refused.status, json.loads(refused.read())["error"]["code"]) == (400, "bad_request")
    assert run_wardian("host", "status").json()["host"]["pid"] > 0
    # The session is the host's own random token: no file of the home holds or derives it.
    assert not (paths.run_dir(wardian_home) / "web.secret").exists()
    log = (paths.logs_dir(wardian_home) / "host.log").read_text()
    assert "web view serving" in log
    assert cookie.split("=")[1] not in log and login not in log


def _loaded_aiohttp(pid: int) -> bool:
    return "/aiohttp/" in Path(f"/proc/{pid}/maps").read_text()


def test_the_host_loads_the_web_server_only_once_the_view_is_asked_for(
    spawn: Spawn, run_wardian: RunWardian, wardian_home: Path
) -> None:
    spawn("idler", "bash", "--norc")
    pid = running_host_pid(wardian_home)
    assert pid is not None and not _loaded_aiohttp(pid)
    web_address(run_wardian)
    assert _loaded_aiohttp(pid)


def test_listen_elsewhere_warns_and_a_restarted_host_serves_loopback_again_at_its_port(
    run_wardian: RunWardian, wardian_home: Path
) -> None:
    web_address(run_wardian)
    elsewhere = run_wardian("web", "--listen", "127.0.0.2")
    assert elsewhere.returncode == 0, elsewhere.stderr
    moved = elsewhere.json()["web"]
    assert (moved["listen"], moved["loopback"]) == ("127.0.0.2", False)
    assert "warning: the web view listens on 127.0.0.2" in elsewhere.stderr and moved["warning"]
    gated = http.client.HTTPConnection("127.0.0.2", moved["port"], timeout=30)
    gated.request("GET", "/", headers={"Host": f"127.0.0.2:{moved['port']}"})
    assert gated.getresponse().status == 401
    # An address this machine does not have: refused, and the view goes on where it was.
    foreign = run_wardian("web", "--listen", "192.0.2.1")
    assert foreign.returncode == 1 and foreign.error()["code"] == "request_failed"
    still = http.client.HTTPConnection("127.0.0.2", moved["port"], timeout=30)
    still.request("GET", "/", headers={"Host": f"127.0.0.2:{moved['port']}"})
    assert still.getresponse().status == 401
    # Back on loopback, then a new host: the view is served again at the recorded port.
    back = run_wardian("web").json()["web"]
    assert back["listen"] == "127.0.0.1"
    assert run_wardian("host", "stop").returncode == 0
    assert run_wardian("host", "start").returncode == 0
    record = json.loads((paths.run_dir(wardian_home) / "web.json").read_text())
    assert (record["listen"], record["port"]) == ("127.0.0.1", back["port"])
    assert _get(back["port"], "/", {"Host": f"127.0.0.1:{back['port']}"}).status == 401


def test_a_pending_ask_is_shown_and_answered_from_the_page_as_a_person(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian
) -> None:
    spawn("listener", "cat")
    wait_status("listener", "idle")
    asked = run_wardian("ask", "listener", "Is the change safe to merge?", "--no-wait")
    assert asked.returncode == 0, asked.stderr
    request_id = asked.json()["request_id"]
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        item = f"#asks li[data-request={request_id}]"
        page.wait_for_selector(f"{item} form")
        assert "Is the change safe to merge?" in page.inner_text(item)
        page.fill(f"{item} input", "yes, the tests cover it")
        # The host pushes its state while the person types (here: another agent's tile); the
        # reply typed so far and its focus stay (a redrawn form once sent an empty reply).
        other = spawn("other", "cat")
        page.wait_for_selector(f"#agent-{other['uuid']}")
        assert typed_and_focused(page, f"{item} input") == ["yes, the tests cover it", True]
        page.click(f"{item} button")
        page.wait_for_function(
            f"document.querySelector('{item}').textContent.includes('done — yes, the tests cover it')"
        )
    reply = run_wardian("ask", "show", request_id).json()["request"]["reply"]
    assert (reply["status"], reply["body"], reply["source"]) == ("done", "yes, the tests cover it", "human")


def test_a_workflow_run_and_its_nodes_follow_the_run_without_a_reload(
    run_wardian: RunWardian, wardian_home: Path, workspace: Path
) -> None:
    flow = {
        "id": "greet",
        "nodes": [
            {"id": "hello", "kind": "shell", "command": "echo hi"},
            {"id": "ship", "kind": "approval", "message": "Go on?"},
        ],
        "edges": [{"from": "hello", "to": "ship"}],
    }
    (wardian_home / "workflows").mkdir(exist_ok=True)
    (wardian_home / "workflows" / "greet.json").write_text(json.dumps(flow))
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        started = run_wardian("workflow", "run", "greet", "--workspace", str(workspace))
        assert started.returncode == 0, started.stderr
        run_id = started.json()["run"]["run_id"]
        run = f"#runs li[data-run={run_id}]"
        page.wait_for_function(f"document.querySelector('{run}')?.textContent.includes('ship: awaiting_approval')")
        assert "hello: completed" in page.inner_text(run)
        assert run_wardian("workflow", "approve", run_id, "ship").returncode == 0
        page.wait_for_function(f"document.querySelector('{run}').textContent.includes('greet · completed')")
        assert "ship: completed" in page.inner_text(run)


def test_a_tile_gets_its_terminal_only_once_it_comes_on_screen(
    spawn: Spawn, wait_status: WaitStatus, run_wardian: RunWardian
) -> None:
    agents = [spawn(f"tile-{index}", "bash", "-c", f"echo drawn-{index}-$((6*7)); exec cat") for index in range(3)]
    for index in range(3):
        wait_status(f"tile-{index}", "idle")
    has_terminal = "(uuid) => document.querySelector(`#agent-${uuid} .xterm-rows`) !== null"
    with chromium_page(390, 300) as page:  # one column: the third tile is far below the window
        open_view(page, lambda: web_address(run_wardian))
        first, last = (f"#agent-{agents[index]['uuid']}" for index in (0, 2))
        page.wait_for_function(f"document.querySelector('{first} .xterm-rows')?.textContent.includes('drawn-0-42')")
        # Every row of a tile's terminal is inside its box: the newest output is never cut off.
        screen = page.eval_on_selector(f"{first} .xterm-screen", "node => node.offsetHeight")
        assert 0 < screen <= page.eval_on_selector(f"{first} .terminal-box", "node => node.clientHeight")
        page.wait_for_selector(last)
        assert page.evaluate(has_terminal, agents[2]["uuid"]) is False
        page.eval_on_selector(last, "node => node.scrollIntoView()")
        page.wait_for_function(f"document.querySelector('{last} .xterm-rows')?.textContent.includes('drawn-2-42')")
