"""`wardian tui` driven by Textual's pilot against a real host of the test's home: the roster,
status changes from the event stream, the kill confirmation, attach and return."""

from pathlib import Path
from typing import Any

import pytest
from in_process_agents import spawn, wait_until
from textual.pilot import Pilot
from tui_driving import driven, screen_text, settled, until

from wardian_host.testing.in_process import InProcessHost
from wardian_host.tui import app as tui_app
from wardian_host.tui.app import WardianApp

SLEEPER = ("sh", "-c", "echo ready; exec sleep 600")


@pytest.fixture(autouse=True)
def no_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the first read of the roster: what changes after it must come from the event stream."""
    monkeypatch.setattr(tui_app, "REFRESH_SECONDS", 3600.0)


def status_of(app: WardianApp, name: str) -> str | None:
    row = app.rows.get(name)
    return row.status if row else None


def test_the_roster_shows_every_agent_with_its_class_provider_and_workspace(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    for name in ("alpha", "beta"):
        spawn(running_host, tmp_path, name, *SLEEPER)
        wait_until(running_host, name, "idle")

    async def steps(pilot: Pilot[Any]) -> str:
        return screen_text(pilot.app)

    shown = running_host.call(driven(WardianApp(), steps))
    lines = [line for line in shown.splitlines() if line.lstrip().startswith(("alpha", "beta"))]
    assert len(lines) == 2, shown
    for line in lines:
        assert "idle" in line and "Coder" in line and "generic" in line and "local" in line


def test_a_status_change_arrives_from_the_hosts_event_stream(running_host: InProcessHost, tmp_path: Path) -> None:
    spawn(running_host, tmp_path, "talker", "sh", "-c", "echo ready; read line; echo got $line; exec sleep 600")
    wait_until(running_host, "talker", "idle")

    async def steps(pilot: Pilot[Any]) -> list[str]:
        app = pilot.app
        assert isinstance(app, WardianApp)
        feed = app._feed
        if feed is not None:  # its stream starts at the end of the output: connected before the change
            await until(pilot, lambda: "talker" in feed.following(), "the follower")
        seen: list[str] = []
        # Typed into it, the command prints: the generic provider calls that processing, then idle.
        await pilot.press("s")
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: status_of(app, "talker") == "processing" or bool(seen), "processing")
        seen.append(status_of(app, "talker") or "")
        await until(pilot, lambda: status_of(app, "talker") == "idle", "idle again")
        return seen

    seen = running_host.call(driven(WardianApp(), steps))
    assert seen == ["processing"]


def test_kill_asks_first_and_n_keeps_the_agent(running_host: InProcessHost, tmp_path: Path) -> None:
    spawn(running_host, tmp_path, "victim", *SLEEPER)
    wait_until(running_host, "victim", "idle")

    async def steps(pilot: Pilot[Any]) -> tuple[str, str, str]:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await pilot.press("K")
        asked = screen_text(app)
        await pilot.press("n")
        await settled(pilot)
        kept = running_host.host.registry.resolve("victim").status
        await pilot.press("K", "y")
        await until(pilot, lambda: status_of(app, "victim") == "off", "the agent off")
        return asked, kept, screen_text(app)

    asked, kept, after = running_host.call(driven(WardianApp(), steps))
    assert "Kill victim?" in asked
    assert kept == "idle"
    assert running_host.host.registry.resolve("victim").status == "off"
    assert "Kill victim?" not in after


def test_enter_steps_aside_for_agent_attach_and_the_dashboard_comes_back(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "seat", *SLEEPER)
    wait_until(running_host, "seat", "idle")
    ran: list[list[str]] = []

    def attach(argv: list[str]) -> int:
        ran.append(argv)
        return 0

    async def steps(pilot: Pilot[Any]) -> str:
        await pilot.press("enter")
        await settled(pilot)
        await pilot.press("question_mark")  # the dashboard answers keys again
        return screen_text(pilot.app)

    after = running_host.call(driven(WardianApp(attach_runner=attach), steps))
    assert len(ran) == 1 and ran[0][-3:] == ["agent", "attach", "seat"]
    assert Path(ran[0][0]).name == "wardian"
    assert "Keys" in after
