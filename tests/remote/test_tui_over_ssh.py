"""`wardian tui` beside a real sshd and a second home of another local user
(tests/support/ssh_machine.py): a remote agent's status change reaches its row from that
machine's event stream, with the remotes' roster read only once, and quitting the dashboard
leaves no ssh process behind."""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from polling import polled_until
from ssh_machine import Machine
from textual.pilot import Pilot
from tui_driving import driven, until

from wardian_host.tui import app as tui_app
from wardian_host.tui.app import WardianApp

KEY = "talker@devbox"
SLEEPER = "sleeper"  # live the whole time: its stream is open when the dashboard quits


def ssh_processes(port: int) -> list[str]:
    """This machine's `ssh` processes that reach the test's sshd (its port is the test's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or it ended meanwhile
            continue
        if Path(argv[0].decode()).name == "ssh" and str(port).encode() in argv:
            found.append(b" ".join(argv).decode())
    return found


def remote_watches(user: str) -> list[str]:
    """The remote user's `agent watch` commands still running."""
    import pwd

    uid = pwd.getpwnam(user).pw_uid
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.stat().st_uid != uid:
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "agent watch" in command:
            found.append(command)
    return found


def spawned_on(machine: Machine, run_wardian: Any, name: str, script: str) -> None:
    identity = ["--class", "Coder", "--name", name, "--workspace", str(machine.home.parent)]
    args = ["--remote", "devbox", "agent", "spawn", "--provider", "generic", *identity, "--", "sh", "-c", script]
    spawned = run_wardian(*args)
    assert spawned.returncode == 0, spawned.stderr
    waited = run_wardian("agent", "wait", f"{name}@devbox", "--until", "idle", "--timeout", "30s")
    assert waited.returncode == 0, waited.stderr


def test_a_remote_status_change_reaches_the_row_from_its_event_stream(
    devbox: Machine, run_wardian: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tui_app, "REMOTE_SECONDS", 3600.0)  # one roster read: what changes after comes streamed
    monkeypatch.setattr(tui_app, "REFRESH_SECONDS", 3600.0)
    # Idle at its `read`; the line sent ends it with status 3: `error`, which it keeps.
    spawned_on(devbox, run_wardian, "talker", "echo ready; read line; exit 3")
    spawned_on(devbox, run_wardian, SLEEPER, "echo ready; exec sleep 600")
    started = run_wardian("host", "start")  # this machine's host: the dashboard reads its roster first
    assert started.returncode == 0, started.stderr

    async def steps(pilot: Pilot[Any]) -> tuple[str, str, list[str]]:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await until(pilot, lambda: KEY in app.remote, "the remote row", 60)
        before = app.remote[KEY].status
        await until(pilot, lambda: app._remote_feed is not None, "the remote feed")
        feed = app._remote_feed
        await until(pilot, lambda: feed is not None and len(feed.following()) == 2, "both streams", 60)
        sent = await asyncio.to_thread(run_wardian, "send", "bye", "--to", KEY)
        assert sent.returncode == 0, sent.stderr
        await until(pilot, lambda: app.remote[KEY].status == "error", "the streamed error", 60)
        await until(pilot, lambda: any(entry.agent == KEY for entry in app.queue_entries), "its queue entry", 60)
        return before, app.remote[KEY].status, ssh_processes(devbox.port)

    before, after, while_open = asyncio.run(driven(WardianApp(), steps))

    assert (before, after) == ("idle", "error")
    assert any("ControlMaster=yes" in line for line in while_open), while_open  # the shared master ran
    assert sum(f"agent watch {SLEEPER}" in line for line in while_open) == 1, while_open  # still followed
    assert ssh_processes(devbox.port) == []  # its session reaped, the master told to exit
    # The far side ends its `agent watch` once the session closes (`remote-run`); a bound for a hang only.
    polled_until(lambda: not remote_watches(devbox.user), "the far side's `agent watch` ended")
