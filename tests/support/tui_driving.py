"""Driving `wardian tui`'s app with Textual's pilot beside an in-process host, and reading its
screen as text.

The app runs on the host's own loop (`InProcessHost.call`): its reads and actions are threads
talking to the control socket, so the host serves them while the pilot awaits.
"""

import io
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from wardian_host.tui.app import WardianApp

T = TypeVar("T")
SIZE = (80, 24)  # the smallest terminal the dashboard is made for


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (no colour): what a snapshot keeps."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, color_system=None)
    console.print(app.screen._compositor.render_update(full=True))  # as App.export_screenshot renders it
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


async def settled(pilot: Pilot[Any]) -> None:
    """Every read and action the app started has finished and been drawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Pilot[Any], seen: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    """Wait for the app to show something that arrives from the host (the feed, a refresh):
    awaited on the app's loop, a bound for a hang only."""
    import asyncio

    deadline = asyncio.get_running_loop().time() + seconds
    while not seen():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never saw {what}; the screen:\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


async def driven(app: WardianApp, steps: Callable[[Pilot[Any]], Awaitable[T]]) -> T:
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.loaded and app.queue_read, "the first roster and queue")
        await settled(pilot)
        # A DataTable of `height: auto` takes its rows' height a refresh after they are added.
        await until(pilot, lambda: not app.queue_entries or app.query_one("#queue").size.height > 1, "the queue")
        await settled(pilot)
        return await steps(pilot)
