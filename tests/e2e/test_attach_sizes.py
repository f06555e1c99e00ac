"""`wardian agent attach` from a terminal that reports no size (0×0): the agent keeps its own."""

import json
import os
import sys
from pathlib import Path

from pty_reading import read_until
from ptyprocess import PtyProcess

WARDIAN = str(Path(sys.executable).parent / "wardian")


def test_attach_from_a_terminal_of_size_zero_uses_the_agents_size(spawn, wait_status, run_wardian) -> None:
    spawn("seat", "bash", "--norc")
    wait_status("seat", "idle")
    before = run_wardian("agent", "screen", "seat").json()["screen"]["size"]
    # As a fresh pty.fork(), some CI runners and ssh set-ups report it.
    client = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(0, 0))
    assert client.getwinsize() == (0, 0)
    read_until(client, b"bash-")  # attached: the recent screen was replayed
    client.write(b"echo size-$(stty size | tr ' ' x)\r")
    read_until(client, f"size-{before['rows']}x{before['cols']}".encode())
    client.write(b"\x1cd")  # Ctrl-\ then d
    shown = read_until(client, b"}\r\n}")
    client.wait()
    assert client.exitstatus == 0, shown
    answer = json.loads(shown[shown.index(b"{") :].replace(b"\r\n", b"\n"))
    assert answer["attach"]["reason"] == "detached"
    assert run_wardian("agent", "screen", "seat").json()["screen"]["size"] == before
