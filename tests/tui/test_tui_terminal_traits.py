"""What a terminal program owes its terminal: no colour under NO_COLOR, and the mouse (a click
selects a roster row; the queue's buttons answer the selected entry, in test_tui_queue.py)."""

import asyncio
import io
from typing import Any

import pytest
from rich.console import Console
from rich.segment import Segment
from textual.pilot import Pilot
from tui_driving import driven, settled
from tui_rows import ENTRIES, ROWS, SCREENS

from wardian_host.tui.app import WardianApp
from wardian_host.tui.sources import FixedSources


def drawn_segments(app: WardianApp) -> list[Segment]:
    """The screen as the terminal gets it: every segment with its style."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), color_system="truecolor")
    update = app.screen._compositor.render_update(full=True)
    assert update is not None  # a full update always draws
    return list(console.render(update))


def coloured(segments: list[Segment]) -> list[str]:
    def colour(style: Any) -> bool:
        return any(color is not None and not color.is_default for color in (style.color, style.bgcolor))

    return [segment.text for segment in segments if segment.style is not None and colour(segment.style)]


def dashboard_segments() -> list[Segment]:
    async def steps(pilot: Pilot[Any]) -> list[Segment]:
        assert isinstance(pilot.app, WardianApp)
        return drawn_segments(pilot.app)

    return asyncio.run(driven(WardianApp(FixedSources(ROWS, SCREENS, ENTRIES)), steps))


def test_no_color_draws_the_dashboard_without_any_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    segments = dashboard_segments()
    assert any("action_required" in segment.text for segment in segments)
    assert coloured(segments) == []


def test_without_no_color_the_statuses_are_coloured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert any("action_required" in text for text in coloured(dashboard_segments()))


def test_a_click_on_a_roster_row_selects_it() -> None:
    async def steps(pilot: Pilot[Any]) -> tuple[str | None, str | None]:
        app = pilot.app
        assert isinstance(app, WardianApp)
        before = app.selected_row()
        roster = app.query_one("#roster")
        names = [row.key for row in app.shown_rows()]
        await pilot.click(roster, offset=(2, 1 + names.index("docs")))  # under the header row
        await settled(pilot)
        after = app.selected_row()
        return (before.key if before else None), (after.key if after else None)

    before, after = asyncio.run(driven(WardianApp(FixedSources(ROWS, SCREENS, ENTRIES)), steps))
    assert (before, after) == ("reviewer", "docs")
