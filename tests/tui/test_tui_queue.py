"""The dashboard's queue: a dialog a CLI waits at is at the top, and `a` on it approves it with
the provider's own keys (the example provider's stand-in CLI asks before running a tool)."""

import sys
from pathlib import Path
from typing import Any

from in_process_agents import spawn_params, wait_until
from textual.pilot import Pilot
from tui_driving import driven, screen_text, settled, until

from wardian_host.testing.in_process import InProcessHost
from wardian_host.tui.app import WardianApp

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]


def example_agent(host: InProcessHost, workspace: Path, name: str) -> None:
    params = spawn_params(workspace, name).model_copy(update={"provider": "example"})
    host.call(host.host.lifecycle.spawn(params))
    wait_until(host, name, "idle")


def test_a_dialog_heads_the_queue_and_a_approves_it(example_host: InProcessHost, tmp_path: Path) -> None:
    example_agent(example_host, tmp_path, "asker")

    async def steps(pilot: Pilot[Any]) -> tuple[str, str]:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await pilot.press("s", *"tool touch accepted.txt", "enter")  # a line sent, as `wardian send` sends it
        await until(pilot, lambda: "dialog   asker" in screen_text(app), "the dialog on screen")
        queued = screen_text(app)
        await pilot.press("tab")  # to the queue
        await pilot.press("a")
        await until(pilot, lambda: app.rows["asker"].status == "idle", "the dialog answered")
        # The queue is read again after the roster hears the change, in its own thread.
        await until(pilot, lambda: "Nothing needs you." in screen_text(app), "the queue emptied")
        return queued, screen_text(app)

    queued, after = example_host.call(driven(WardianApp(), steps))
    assert "dialog   asker" in queued and "waiting at a dialog" in queued
    assert (tmp_path / "accepted.txt").exists()
    evidence = example_host.host.registry.resolve("asker").status_evidence or {}
    assert evidence.get("answer") == "accepted"
    assert "none need you" in after  # the header counts the same queue


def test_a_click_on_the_queues_accept_button_approves_the_dialog(example_host: InProcessHost, tmp_path: Path) -> None:
    example_agent(example_host, tmp_path, "clicked")

    async def steps(pilot: Pilot[Any]) -> str:
        app = pilot.app
        assert isinstance(app, WardianApp)
        await pilot.press("s", *"tool touch clicked.txt", "enter")
        # The layout settled: the roster shows the dialog too, so no redraw moves the buttons.
        await until(pilot, lambda: app.rows["clicked"].status == "action_required", "the dialog in the roster")
        await until(pilot, lambda: "dialog   clicked" in screen_text(app), "the dialog on screen")
        await settled(pilot)
        assert app.focused is not None and app.focused.id == "roster"  # the click alone picks the entry
        assert await pilot.click("#answer-accept"), "the click missed the button"
        await until(pilot, lambda: app.rows["clicked"].status == "idle", "the dialog answered")
        await until(pilot, lambda: "Nothing needs you." in screen_text(app), "the queue emptied")
        return screen_text(app)

    after = example_host.call(driven(WardianApp(), steps))
    assert (tmp_path / "clicked.txt").exists()
    assert (example_host.host.registry.resolve("clicked").status_evidence or {}).get("answer") == "accepted"
    assert "none need you" in after  # the header counts the same queue
