"""A tmux pane of 80×24 on a tmux server of the test's own, read as a person reads the screen:
`wardian tui`'s terminal tests (tests/e2e, the real-CLI ones) drive it with send-keys."""

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

Tmux = Callable[..., str]
SCREEN_SECONDS = 30.0  # a bound for a hang, never reached by a passing test


@contextlib.contextmanager
def tmux_pane(wardian_home: Path, tmp_path: Path, command: str | None = None) -> Iterator[Tmux]:
    """`tmux(*args)` on the pane; it runs `command`, or a shell with the test's home."""
    socket = f"wardian-tui-{os.getpid()}-{tmp_path.name}"

    def tmux(*args: str) -> str:
        ran = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, check=True)
        return ran.stdout

    shell = f"env WARDIAN_HOME={wardian_home} PS1='ready$ ' bash --norc --noprofile"
    tmux("new-session", "-d", "-x", "80", "-y", "24", command or shell)
    try:
        yield tmux
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def until_screen(tmux: Tmux, seen: Callable[[str], bool], what: str, seconds: float = SCREEN_SECONDS) -> str:
    """The pane's text once `seen` holds (tmux tells no event for a redraw: read until then)."""
    deadline = time.monotonic() + seconds
    while True:
        text = tmux("capture-pane", "-p")
        if seen(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {what}; the pane:\n{text}")
        time.sleep(0.05)


def roster_status(text: str, name: str) -> str | None:
    """NAME's status in the dashboard's roster, as the screen shows it."""
    for line in text.splitlines():
        words = line.split()
        if words[:1] == [name] and len(words) > 1:
            return words[1]
    return None
