"""Snapshots of the dashboard's screens at 80×24, from fixed rows (no host: nothing moves
between runs). UPDATE_TUI_SNAPSHOTS=1 writes them anew; read the diff before committing."""

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_driving import driven, screen_text, settled
from tui_rows import ENTRIES, ROWS, SCREENS

from wardian_host.tui.app import WardianApp
from wardian_host.tui.sources import FixedSources

SNAPSHOTS = Path(__file__).parent / "snapshots"


def snapshot(name: str, keys: tuple[str, ...] = ()) -> None:
    async def steps(pilot: Pilot[Any]) -> str:
        if keys:
            await pilot.press(*keys)
            await settled(pilot)
        return screen_text(pilot.app)

    shown = asyncio.run(driven(WardianApp(FixedSources(ROWS, SCREENS, ENTRIES)), steps))
    kept = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_TUI_SNAPSHOTS") == "1":
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(shown + "\n")
    assert shown + "\n" == kept.read_text(), f"{name} changed; the screen now:\n{shown}"


Shot = Callable[[], Awaitable[None]]


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("dashboard", ()),
        ("keys", ("question_mark",)),
        ("kill_confirmation", ("down", "K")),
        ("filtered", ("slash", *"shop")),
        ("evidence", ("e",)),
    ],
)
def test_screen_at_80x24(name: str, keys: tuple[str, ...]) -> None:
    snapshot(name, keys)
