"""`send --approval` types a dialog's keys once the dialog is on the screen, and verifies the
agent left it.

Wardian's own plumbing, against a scripted terminal that drops keys typed before its dialog is
drawn (as Gemini's and Claude's TUIs do after a hook told of the dialog): what each provider
really draws and takes is proven by its real-CLI approval tests.
"""

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wardian_core import identity
from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_core.provider_models import DialogKeys, InputProfile
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.sending import Sender
from wardian_host.agents.status_tracker import StatusTracker

BOX = "Allow once"
ASKED = {"source": "hooks", "event": "approval_requested", "reason": "tool", "dialog": "tool"}
PROFILES = {
    "drawn": InputProfile(dialogs={"tool": DialogKeys(accept="\r", reject="\x1b", settle_seconds=0.2, drawn=BOX)}),
    "slow": InputProfile(dialogs={"tool": DialogKeys(accept="\r", settle_seconds=5, drawn=BOX)}),
}


def draw(*rows: str) -> bytes:
    return b"\x1b[2J\x1b[H" + "\r\n".join(rows).encode()


class DialogTerminal:
    """Plays a TUI whose dialog takes keys only once drawn: keys before are lost."""

    def __init__(self, tracker: StatusTracker) -> None:
        self.tracker = tracker
        self.agent: Any = None
        self.drawn_at: float | None = None
        self.typed: list[tuple[float, bytes]] = []

    def draw_box(self) -> None:
        self.drawn_at = time.monotonic()
        self.agent.record_output(draw("│ Shell touch approved.txt │", f"│ ● 1. {BOX} │", "│ 3. No (esc) │"))

    def write(self, uuid: str, data: bytes) -> None:
        self.typed.append((time.monotonic(), data))
        if self.drawn_at is not None:
            self.agent.record_output(draw("✓ Shell touch approved.txt", "> "))
            self.tracker.set_status(self.agent, "processing", {"source": "hooks", "event": "approval_resolved"})


@pytest.fixture
def home(tmp_path: Path) -> SimpleNamespace:
    conn = open_writer(tmp_path)
    registry = AgentRegistry(conn, 64 * 1024)
    tracker = StatusTracker(conn, lambda *_: None)
    terminal = DialogTerminal(tracker)
    plugins = SimpleNamespace(info=lambda name: SimpleNamespace(input_profile=PROFILES[name]))
    sender = Sender(registry, plugins, terminal)  # type: ignore[arg-type]  # the parts an answer uses

    def asking(provider: str = "drawn") -> Any:
        row = identity.create_agent(conn, class_name="Coder", provider=provider, workspace=tmp_path, name="gm")
        agent = registry.add(dict(row))
        agent.is_running = True
        tracker.set_status(agent, "action_required", dict(ASKED))
        terminal.agent = agent
        return agent

    return SimpleNamespace(asking=asking, terminal=terminal, sender=sender, tracker=tracker)


def answer(home: SimpleNamespace, timeout: float, draw_after: float | None = None) -> dict[str, Any]:
    async def answered() -> dict[str, Any]:
        if draw_after is not None:
            asyncio.get_running_loop().call_later(draw_after, home.terminal.draw_box)
        return (await home.sender.answer_approval("gm", "accept", timeout)).wire()

    return asyncio.run(answered())


def test_a_dialog_reported_before_it_is_drawn_gets_its_keys_once_drawn_and_settled(home: SimpleNamespace) -> None:
    home.asking()

    result = answer(home, timeout=10, draw_after=0.3)

    assert result["left_action_required"] is True
    assert [keys for _, keys in home.terminal.typed] == [b"\r"]
    typed_at = home.terminal.typed[0][0]
    assert typed_at - home.terminal.drawn_at >= 0.2, "the settle counts from the paint, not the report"


def test_a_dialog_already_on_screen_settles_from_its_report(home: SimpleNamespace) -> None:
    agent = home.asking("slow")
    home.terminal.draw_box()
    agent.dialog_opened_at -= 5  # reported a settle ago: no wait is left

    started = time.monotonic()
    answer(home, timeout=10)

    assert home.terminal.typed[0][0] - started < 5


def test_a_dialog_never_drawn_still_gets_its_keys_after_half_the_timeout(home: SimpleNamespace) -> None:
    agent = home.asking()
    started = time.monotonic()

    with pytest.raises(WardianError) as caught:
        answer(home, timeout=0.6)

    error = caught.value
    assert error.code == "approval_not_answered"
    assert error.details["drawn"] is False
    assert "never showed 'Allow once'" in error.message
    assert [keys for _, keys in home.terminal.typed] == [b"\r"]
    assert home.terminal.typed[0][0] - started >= 0.3
    assert agent.status == "action_required"


def test_a_dialog_answered_in_its_terminal_meanwhile_gets_no_keys(home: SimpleNamespace) -> None:
    agent = home.asking()

    def answered_by_a_person() -> None:
        home.tracker.set_status(agent, "processing", {"source": "hooks", "event": "approval_resolved"})
        home.terminal.draw_box()  # then a later redraw shows the box's text again

    async def answering() -> None:
        asyncio.get_running_loop().call_later(0.2, answered_by_a_person)
        await home.sender.answer_approval("gm", "accept", 10)

    with pytest.raises(WardianError) as caught:
        asyncio.run(answering())

    assert caught.value.code == "request_failed"
    assert "left its dialog before Wardian typed the answer" in caught.value.message
    assert home.terminal.typed == []
