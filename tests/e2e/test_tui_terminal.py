"""`wardian tui` in a real terminal (a tmux pane of 80×24): the roster read from the screen,
Enter attaching and detaching back to the dashboard, `q` leaving the shell as it was."""

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (scripts/dev.py installs it)")

WARDIAN = str(Path(os.environ.get("VIRTUAL_ENV", Path(__file__).parents[2] / ".venv")) / "bin" / "wardian")
SCREEN_SECONDS = 30.0  # a bound for a hang, never reached by a passing test


@pytest.fixture
def pane(wardian_home: Path, tmp_path: Path) -> Iterator[Callable[..., str]]:
    """`tmux(*args)` on a server of this test's own, whose shell has the test's home."""
    socket = f"wardian-tui-{os.getpid()}-{tmp_path.name}"

    def tmux(*args: str) -> str:
        ran = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, check=True)
        return ran.stdout

    shell = f"env WARDIAN_HOME={wardian_home} PS1='ready$ ' bash --norc --noprofile"
    tmux("new-session", "-d", "-x", "80", "-y", "24", shell)
    try:
        yield tmux
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def until_screen(tmux: Callable[..., str], seen: Callable[[str], bool], what: str) -> str:
    """The pane's text once `seen` holds (tmux tells no event for a redraw: read until then)."""
    deadline = time.monotonic() + SCREEN_SECONDS
    while True:
        text = tmux("capture-pane", "-p")
        if seen(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {what}; the pane:\n{text}")
        time.sleep(0.05)


def roster_status(text: str, name: str) -> str | None:
    for line in text.splitlines():
        words = line.split()
        if words[:1] == [name] and len(words) > 1:
            return words[1]
    return None


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
