"""`wardian tui` in a real terminal (tmux, 80×24) approves a real Claude Code's tool dialog:
the dialog heads the queue on screen, Tab and `a` approve it, and the tool runs (the model
server receives its result). One run, at the current pin only: the dialog itself is proven at
every pin by test_real_cli.py; this proves the dashboard's path to it."""

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from model_server import ModelServer
from real_cli_fixtures import RealCli, pinned_clis, running_cli
from tmux_panes import roster_status, tmux_pane, until_screen

pytestmark = [
    pytest.mark.real_cli,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (scripts/dev.py installs it)"),
]

WARDIAN = str(Path(sys.executable).parent / "wardian")
CURRENT = next(pin for pin in pinned_clis("claude") if pin.current)
TURN_SECONDS = 90.0  # Claude's start and a model call on this shared machine: a bound for a hang


@pytest.fixture
def claude(
    wardian: Callable[..., Any], tmp_path: Path, model_server: ModelServer, isolated_home: Path
) -> Iterator[RealCli]:
    """The current Claude Code, pointed at the model server (after `wardian` took the home)."""
    with running_cli(CURRENT, tmp_path, model_server) as cli:
        yield cli


def queued_dialog(text: str, name: str) -> bool:
    return any(line.split()[:2] == ["dialog", name] for line in text.splitlines())


def test_the_dashboard_approves_a_claude_tool_dialog_from_its_queue(
    wardian: Callable[..., Any], claude: RealCli, wardian_home: Path, tmp_path: Path
) -> None:
    env = {**claude.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude.executable)}
    env.pop("HOME", None)
    spawn = ("agent", "spawn", "--provider", "claude", "--class", "Coder", "--name", "cc")
    wardian(*spawn, "--workspace", str(claude.workspace), env=env).json()
    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", "60s").json()
    approved = claude.workspace / "approved.txt"

    with tmux_pane(wardian_home, tmp_path, f"env WARDIAN_HOME={wardian_home} {WARDIAN} tui") as pane:
        until_screen(pane, lambda text: roster_status(text, "cc") == "idle", "the roster")
        wardian("send", f"run MOCK_TOOL:touch {approved.name} ECHO:tui1", "--to", "cc").json()
        asking = until_screen(pane, lambda text: queued_dialog(text, "cc"), "the dialog queued", TURN_SECONDS)
        assert asking.splitlines()[2].split()[:2] == ["dialog", "cc"], asking  # it heads the queue
        assert not approved.exists(), "the tool ran before it was approved"

        pane("send-keys", "Tab", "a")  # to the queue; approve its first entry

        claude.server.wait_for(lambda request: "tool_result" in request.body_text(), timeout=TURN_SECONDS)
        until_screen(pane, lambda text: "Nothing needs you." in text, "the queue emptied", TURN_SECONDS)
    assert approved.exists()
    claude.assert_only_model_server_was_called()
