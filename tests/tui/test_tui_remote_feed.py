"""The remotes' agents on their hosts' event streams, with a fake transport: a child process
that prints `agent watch --follow`'s JSON lines in place of ssh. The streams are the ones the
dashboard uses (`RemoteStreams` in a `StatusFeed`); only the command they run is the fake's."""

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from polling import polled_until
from textual.pilot import Pilot
from tui_driving import driven, until

from wardian_host.remote.options import Remote
from wardian_host.tui import app as tui_app
from wardian_host.tui.app import WardianApp
from wardian_host.tui.feed import StatusFeed, StatusHeard
from wardian_host.tui.remote_feed import RemoteStreams
from wardian_host.tui.roster import RosterRow
from wardian_host.tui.sources import FixedSources

# The far side: says its pid, sends one status change, then streams nothing more until ended;
# `drop` ends as ssh does when its link drops (exit 255, its complaint on stderr).
FAKE_WATCH = """
import json, os, sys, time
pid_file, mode = sys.argv[1], sys.argv[2]
with open(pid_file + ".tmp", "w") as kept:
    kept.write(str(os.getpid()))
os.replace(pid_file + ".tmp", pid_file)
print("a login banner, not JSON")
change = {"kind": "status", "from": "idle", "to": "processing", "evidence": {"source": "fake"}}
print(json.dumps({"event": change}), flush=True)
if mode == "drop":
    sys.stderr.write("Connection to 127.0.0.1 closed by remote host.\\n")
    sys.exit(255)
time.sleep(600)
"""
REMOTE_ROW = RosterRow(
    name="bob", uuid="9", status="idle", class_name="Coder", provider="generic", place="~/w", machine="devbox"
)


class FakeMasters:
    """Runs FAKE_WATCH instead of ssh; keeps what each stream asked to run on the remote."""

    def __init__(self, folder: Path, mode: str = "stay") -> None:
        self.folder = folder
        self.mode = mode
        self.asked: list[list[str]] = []
        self.closed = False

    def argv(self, remote: Remote, args: list[str]) -> list[str]:
        self.asked.append(args)
        return [sys.executable, "-c", FAKE_WATCH, str(self.pid_file(len(self.asked))), self.mode]

    def pid_file(self, started: int) -> Path:
        return self.folder / f"watch-{started}.pid"

    def close(self) -> None:
        self.closed = True


class RemoteSources(FixedSources):
    """No host: one remote row, followed through the fake transport."""

    def __init__(self, masters: FakeMasters) -> None:
        super().__init__([])
        self.masters = masters

    def remote_rows(self) -> tuple[list[RosterRow], list[str]] | None:
        return [REMOTE_ROW], []

    def remote_feed(self, on_status: StatusHeard, on_output: Any) -> StatusFeed | None:
        return StatusFeed(on_status, on_output, RemoteStreams(self.masters))


@pytest.fixture(autouse=True)
def devbox_configured(wardian_home: Path) -> None:
    """A remote the streams look up by name (the fake transport never reaches it)."""
    (wardian_home / "settings.toml").write_text('[remotes.devbox]\nssh = "me@devbox.invalid"\n')


def reaped(pid_file: Path) -> bool:
    """Gone, not a zombie: a child not waited for keeps its /proc entry."""
    return not Path(f"/proc/{int(pid_file.read_text())}").exists()


def test_a_remote_status_line_updates_its_row_and_quitting_reaps_the_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tui_app, "REMOTE_SECONDS", 3600.0)  # only the first roster read of the remote
    masters = FakeMasters(tmp_path)

    async def steps(pilot: Pilot[Any]) -> str:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await until(pilot, lambda: "bob@devbox" in app.remote, "the remote row")
        await until(pilot, lambda: app.remote["bob@devbox"].status == "processing", "the streamed status")
        evidence = app.remote["bob@devbox"].status_evidence or {}
        return str(evidence.get("source"))  # the event's own evidence, not the roster's

    source = asyncio.run(driven(WardianApp(RemoteSources(masters)), steps))

    assert source == "fake"
    assert masters.asked == [["agent", "watch", "bob", "--follow", "--since", str(2**62)]]
    assert reaped(masters.pid_file(1)) and masters.closed


def test_a_remote_agent_leaving_the_roster_has_its_stream_reaped(tmp_path: Path) -> None:
    masters = FakeMasters(tmp_path)
    heard = threading.Event()
    feed = StatusFeed(lambda key, event: heard.set(), lambda key: None, RemoteStreams(masters))
    try:
        feed.follow({"bob@devbox": "idle"})
        assert heard.wait(30)
        assert feed.following() == ["bob@devbox"]

        feed.follow({})

        assert reaped(masters.pid_file(1)) and feed.following() == []
    finally:
        feed.close()


def test_a_dropped_link_is_followed_again_at_the_next_read_at_the_same_status(tmp_path: Path) -> None:
    masters = FakeMasters(tmp_path, mode="drop")
    heard: list[str] = []
    changes = threading.Semaphore(0)

    def on_status(key: str, event: dict[str, Any]) -> None:
        heard.append(key)
        changes.release()

    feed = StatusFeed(on_status, lambda key: None, RemoteStreams(masters))
    try:
        feed.follow({"bob@devbox": "idle"})
        assert changes.acquire(timeout=30)
        polled_until(lambda: not feed.following(), "the stream marked ended after the fake's exit")

        feed.follow({"bob@devbox": "idle"})  # the same status: only a lost link starts it again

        assert changes.acquire(timeout=30)
        assert heard == ["bob@devbox", "bob@devbox"] and len(masters.asked) == 2
    finally:
        feed.close()
    assert reaped(masters.pid_file(2))


def test_a_stream_asked_for_as_the_dashboard_closes_starts_no_master() -> None:
    """A follower thread that reaches its ssh command after `close` must not open a master
    connection that nobody would end (it would live on for ControlPersist's time)."""
    from wardian_host.remote.settings import RemoteSettings
    from wardian_host.remote.shared_master import SharedMasters

    masters = SharedMasters()
    masters.close()

    with pytest.raises(OSError):
        masters.argv(Remote("devbox", RemoteSettings(ssh="me@devbox.invalid")), ["agent", "list"])
