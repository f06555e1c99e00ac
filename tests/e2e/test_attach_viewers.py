"""Two `wardian agent attach` terminals of different sizes on one agent: the PTY's size follows
the viewers' rule (the smallest rows and columns), and each detach restores what is left."""

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from host_restarts import crash_host
from pty_reading import read_until, read_while
from ptyprocess import PtyProcess

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS

WARDIAN = str(Path(sys.executable).parent / "wardian")


def _pty_size(client: PtyProcess, marker: str) -> bytes:
    """The agent's PTY size as its own `stty` reads it, typed through `client`."""
    client.write(f"echo {marker}-$((6*7))-$(stty size | tr ' ' x)-end\r".encode())
    answer = re.compile(rf"{marker}-42-(\d+x\d+)-end".encode())  # the output, not the typed line
    shown = read_while(client, lambda seen: not answer.search(seen), 20.0, marker)
    return answer.findall(shown)[-1]


def _detach(client: PtyProcess) -> None:
    client.write(b"\x1cd")  # Ctrl-\ then d
    read_until(client, b'"reason": "detached"')
    client.wait()
    assert client.exitstatus == 0


def test_two_attached_terminals_share_the_smallest_size_and_detaching_restores_it(
    spawn, wait_status, run_wardian
) -> None:
    spawn("seat", "bash", "--norc")
    wait_status("seat", "idle")
    wide = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(30, 150))
    read_until(wide, b"bash-")
    tall = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(50, 90))
    read_until(tall, b"bash-")
    assert _pty_size(wide, "both") == b"30x90"  # rows of one, columns of the other
    _detach(tall)  # the host answers the detach after it resized: no race with the next look
    assert _pty_size(wide, "wide") == b"30x150"
    _detach(wide)
    screen = run_wardian("agent", "screen", "seat").json()["screen"]
    assert (screen["size"]["rows"], screen["size"]["cols"]) == (DEFAULT_ROWS, DEFAULT_COLS)
    cursor = run_wardian("agent", "watch", "seat").json()["watch"]["cursor"]
    sent = run_wardian("send", "stty size", "--to", "seat", "--wait-until", "idle", "--timeout", "20s")
    assert sent.returncode == 0, sent.stderr
    shown = run_wardian("agent", "watch", "seat", "--since", str(cursor)).json()["watch"]["output"]
    assert f"\n{DEFAULT_ROWS} {DEFAULT_COLS}\n" in shown  # the PTY itself is back at the agent's own size


def test_a_size_a_viewer_left_while_no_host_ran_is_the_adopting_hosts(
    spawn: Callable[..., Any], wait_status: Callable[..., Any], run_wardian: Callable[..., Any]
) -> None:
    spawn("seat", "bash", "--norc")
    wait_status("seat", "idle")
    wide = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(30, 150))
    read_until(wide, b"bash-")
    assert _pty_size(wide, "wide") == b"30x150"
    crash_host(Path(os.environ["WARDIAN_HOME"]))  # no host left to set the size back
    wide.close(force=True)  # and the viewer never comes back to the next one
    assert run_wardian("host", "start").returncode == 0
    screen = run_wardian("agent", "screen", "seat").json()["screen"]
    assert (screen["size"]["rows"], screen["size"]["cols"]) == (30, 150)  # the PTY's, not the launch size
    # A viewer of the agent's own size gets the PTY at that size (a host that took it to be at
    # its own size already would leave it at 30x150).
    own = PtyProcess.spawn(
        [WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(DEFAULT_ROWS, DEFAULT_COLS)
    )
    read_until(own, b"bash-")
    assert _pty_size(own, "own") == f"{DEFAULT_ROWS}x{DEFAULT_COLS}".encode()
    _detach(own)
    screen = run_wardian("agent", "screen", "seat").json()["screen"]
    assert (screen["size"]["rows"], screen["size"]["cols"]) == (DEFAULT_ROWS, DEFAULT_COLS)
