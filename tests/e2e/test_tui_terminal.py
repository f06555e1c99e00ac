"""`wardian tui` in a real terminal (a tmux pane of 80×24): the roster read from the screen,
Enter attaching and detaching back to the dashboard, `q` leaving the shell as it was."""

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tmux_panes import Tmux, roster_status, tmux_pane, until_screen

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (scripts/dev.py installs it)")

WARDIAN = str(Path(os.environ.get("VIRTUAL_ENV", Path(__file__).parents[2] / ".venv")) / "bin" / "wardian")


@pytest.fixture
def pane(wardian_home: Path, tmp_path: Path) -> Iterator[Tmux]:
    """A shell with the test's home in an 80×24 tmux pane."""
    with tmux_pane(wardian_home, tmp_path) as tmux:
        yield tmux


def test_the_dashboard_in_a_real_terminal_attaches_comes_back_and_quits_cleanly(
    pane: Callable[..., str], spawn: Callable[..., dict], wait_status: Callable[..., dict]
) -> None:
    spawn("echoer", "sh", "-c", "echo waiting-for-you; exec cat")
    wait_status("echoer", "idle")
    until_screen(pane, lambda text: "ready$" in text, "the shell")
    pane("send-keys", f"{WARDIAN} tui", "Enter")

    shown = until_screen(pane, lambda text: roster_status(text, "echoer") == "idle", "the roster")
    assert "1 agent" in shown and "generic" in shown

    pane("send-keys", "Enter")  # attach: the agent's own screen, in this terminal
    until_screen(pane, lambda text: "wardian ·" not in text and "waiting-for-you" in text, "the agent's terminal")
    pane("send-keys", "C-\\", "d")  # the detach keys
    until_screen(pane, lambda text: roster_status(text, "echoer") == "idle", "the dashboard again")

    pane("send-keys", "q")
    after = until_screen(pane, lambda text: text.rstrip().endswith("ready$"), "the shell's prompt")
    assert "wardian ·" not in after
    pane("send-keys", "stty -a | tr ';' '\\n' | grep -c -- '-icanon' ; echo done-checking", "Enter")
    checked = until_screen(
        pane, lambda text: "done-checking\n" in text + "\n" and text.count("done-checking") >= 2, "stty"
    )
    assert "\n0\n" in checked.replace(" ", ""), checked  # canonical mode is back: no raw terminal left
