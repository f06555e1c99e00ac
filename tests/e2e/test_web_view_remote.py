"""The web view of several machines, in a real browser: a remote reached through a real sshd and
a second home of another local user (tests/support/ssh_machine.py), and one that answers no one."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium_page, open_view, web_address
from ssh_machine import Machine, free_port, require_root, start_machine, stop_machine

from wardian_core.errors import WardianError
from wardian_host.web.remotes import remote_args


@pytest.fixture
def devbox(tmp_path_factory: pytest.TempPathFactory, wardian_home: Path) -> Iterator[Machine]:
    require_root()
    machine = start_machine(tmp_path_factory.mktemp("sshd"))
    gone = machine.settings_table("gone").replace(f"port = {machine.port}", f"port = {free_port()}")
    (wardian_home / "settings.toml").write_text(machine.settings_table("devbox") + gone)
    yield machine
    stop_machine(machine)


def test_remote_agents_are_tiles_marked_with_their_machine_acted_on_over_ssh(
    devbox: Machine, run_wardian: Any, tmp_path: Path
) -> None:
    args = ["--class", "Coder", "--name", "far", "--workspace", str(devbox.home.parent), "--", "bash", "--norc"]
    spawned = run_wardian("--remote", "devbox", "agent", "spawn", "--provider", "generic", *args)
    assert spawned.returncode == 0, spawned.stderr
    far = spawned.json()["agent"]
    assert run_wardian("agent", "wait", "far@devbox", "--until", "idle", "--timeout", "60s").returncode == 0
    tile = f"#agent-{far['uuid']}"
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        page.wait_for_selector(f"{tile}[data-machine=devbox][data-status=idle]")
        assert page.inner_text(f"{tile} > div.meta").startswith("devbox · Coder · generic")
        page.wait_for_selector("#machines .machine.unreachable[data-machine=gone]")
        assert "unreachable" in page.inner_text("#machines [data-machine=gone]")
        page.click(f"{tile} .terminal-box")
        assert page.is_hidden("#enlarged")  # no typing into another machine's terminal
        # The send box types on the remote; the tile's screen, read from there, shows bash's answer.
        page.fill(f"{tile} .send input", "echo far-$((6*7))")
        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"{tile} .send button")
        assert answered.value.ok, answered.value.text()
        page.wait_for_function(f"document.querySelector('{tile} .xterm-rows')?.textContent.includes('far-42')")
        page.screenshot(path=tmp_path / "machines.png", full_page=True)
        page.once("dialog", lambda dialog: dialog.accept())  # Kill asks first
        page.click(f"{tile} button[data-action='agent.kill']")
        page.wait_for_selector(f"{tile}[data-status=off]")
    listed = run_wardian("--remote", "devbox", "agent", "show", "far", "--fields", "status").json()["agent"]
    assert listed["status"] == "off"


def test_a_page_action_on_a_remote_agent_is_the_cli_command_a_person_would_run() -> None:
    assert remote_args("send", {"to": "u1", "text": "-h there"}) == ["send", "--to", "u1", "--", "-h there"]
    assert remote_args("send", {"to": "u1", "approval": "reject"}) == ["send", "--approval", "reject", "--to", "u1"]
    assert remote_args("agent.pause", {"target": "-u1"}) == ["agent", "pause", "--", "-u1"]
    for kind, params in (("agent.spawn", {"provider": "generic"}), ("send", {"to": "u1"}), ("reply", {})):
        with pytest.raises(WardianError) as refused:
            remote_args(kind, params)
        assert refused.value.code == "not_supported" and refused.value.hint
