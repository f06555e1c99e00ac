"""`wardian tui` with 50 agents: start-up and update latency, beside `agent list`.

Run with the interpreter the `wardian` command is installed in (needs tmux):
    .venv/bin/python benchmarks/tui.py [--rounds N]

A real host of a scratch home runs AGENTS generic agents. The dashboard runs in a tmux pane of
80×24, the screen read with capture-pane every POLL_SECONDS:

- start-up: from `wardian tui` launched to the title counting every agent (the roster drawn),
  beside its floors measured in the same rounds: `python -c pass` (the interpreter's own
  start), the import of Textual (`textual.app` and `textual.widgets`), the import of the
  dashboard (`wardian_host.tui.app`), and `wardian agent list` (the same read, printed as
  JSON); target: ≤ 0.5 s.
- update: from `wardian agent pause NAME` started to its new status (`off`, for a generic
  command) in NAME's row, beside the
  command's own wall time (the host's answer); target: the command's time + 0.2 s.

Each figure is printed next to its floor, with OVER TARGET where it misses.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
WARDIAN = str(Path(PYTHON).parent / "wardian")
AGENTS = 50
POLL_SECONDS = 0.01
START_TARGET = 0.5
UPDATE_MARGIN = 0.2


def python(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], check=True)
    return time.perf_counter() - started


def wardian(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([WARDIAN, *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def screen(socket: str) -> str:
    return subprocess.run(["tmux", "-L", socket, "capture-pane", "-p"], capture_output=True, text=True).stdout


def row_shows(name: str, status: str) -> str:
    """A mark for `until_shown`: NAME's roster row with STATUS."""
    return f"row:{name}:{status}"


def _seen(text: str, seen: str) -> bool:
    if not seen.startswith("row:"):
        return seen in text
    _, name, status = seen.split(":")
    return any(line.split()[:2] == [name, status] for line in text.splitlines())


def until_shown(socket: str, seen: str, limit: float = 30.0) -> float:
    started = time.perf_counter()
    while not _seen(screen(socket), seen):
        if time.perf_counter() - started > limit:
            raise SystemExit(f"never saw {seen!r}:\n{screen(socket)}")
        time.sleep(POLL_SECONDS)
    return time.perf_counter()


def start_tui(socket: str, env: dict[str, str]) -> float:
    """Launch `wardian tui` in a fresh 80×24 pane; seconds until the roster is drawn."""
    command = " ".join(f"{key}={value}" for key, value in env.items() if key.startswith("WARDIAN"))
    started = time.perf_counter()
    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-x", "80", "-y", "24", f"env {command} {WARDIAN} tui"],
        env=env,
        check=True,
    )
    return until_shown(socket, f"{AGENTS} agents") - started


def stop_tui(socket: str) -> None:
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def update_round(socket: str, env: dict[str, str], name: str) -> tuple[float, float]:
    """Filter the roster to NAME, pause it; (seconds to `paused` on screen, the command's own)."""
    subprocess.run(["tmux", "-L", socket, "send-keys", "/"], check=True)
    until_shown(socket, "filter: _")  # the keys typed now go to the filter
    subprocess.run(["tmux", "-L", socket, "send-keys", name, "Enter"], check=True)
    until_shown(socket, f"filter: {name}")
    started = time.perf_counter()
    own = wardian(env, "agent", "pause", name)
    shown = until_shown(socket, row_shows(name, "off")) - started  # a paused generic command is off
    wardian(env, "agent", "resume", name)
    until_shown(socket, row_shows(name, "idle"))
    return shown, own


def line(label: str, value: float, floor_label: str, floor: float, target: float) -> str:
    mark = "" if value <= target else "  OVER TARGET"
    figures = f"{value * 1000:7.0f} ms   {floor_label}: {floor * 1000:5.0f} ms"
    return f"{label:<44} {figures}   target ≤ {target * 1000:.0f} ms{mark}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    if shutil.which("tmux") is None:
        raise SystemExit("needs tmux (scripts/dev.py installs it)")
    home = Path(tempfile.mkdtemp(prefix="wardian-tui-bench-"))
    env = os.environ | {"WARDIAN_HOME": str(home), "TERM": "xterm-256color"}
    socket = f"wardian-bench-{os.getpid()}"
    try:
        for index in range(AGENTS):
            wardian(env, "agent", "spawn", "--provider", "generic", "--class", "Coder", "--name", f"a{index:02d}",
                    "--workspace", str(home), "--", "sleep", "600")  # fmt: skip
        starts, lists, bare, imports, dashboards, shown, own = [], [], [], [], [], [], []
        for _ in range(rounds):
            lists.append(wardian(env, "agent", "list"))
            bare.append(python("pass"))
            imports.append(python("import textual.app, textual.widgets"))
            dashboards.append(python("import wardian_host.tui.app"))
            starts.append(start_tui(socket, env))
            on_screen, command = update_round(socket, env, "a07")
            shown.append(on_screen)
            own.append(command)
            stop_tui(socket)
        median = statistics.median
        print(f"wardian tui, {AGENTS} generic agents, 80×24 in tmux, median of {rounds} rounds")
        print(line("start-up: launch to roster drawn", median(starts), "agent list", median(lists), START_TARGET))
        for label, figures in (
            ("python -c pass", bare),
            ("import textual", imports),
            ("import wardian_host.tui.app", dashboards),
        ):
            print(f"{'':<44} {'':>7}      {label}: {median(figures) * 1000:5.0f} ms")
        update_target = median(own) + UPDATE_MARGIN
        print(line("update: pause started to `off` shown", median(shown), "agent pause", median(own), update_target))
    finally:
        stop_tui(socket)
        subprocess.run([WARDIAN, "host", "stop"], env=env, capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
