"""The TUI rules on OpenCode 1.18.33's recorded bytes (`fixtures/shared/opencode-tui.raw`: a prompt
whose shell command asks, answered by a key): the stream says when to look, the screen decides."""

from pathlib import Path

import pytest

from wardian_core.provider.testing import Terminal, kinds, offset_after
from wardian_opencode import plugin, tui
from wardian_opencode.profile import PERMISSION_DIALOG

TUI = (Path(__file__).parent / "fixtures" / "shared" / "opencode-tui.raw").read_bytes()


@pytest.fixture
def terminal(make_ctx) -> Terminal:
    return Terminal(plugin, make_ctx)


def test_ready_once_the_footer_shows_and_only_once(terminal: Terminal) -> None:
    assert terminal.feed_to(TUI, offset_after(TUI, "ctrl+p commands") - 1) == []
    [ready] = terminal.feed_to(TUI, offset_after(TUI, "ctrl+p commands"))
    assert (ready.kind, ready.evidence.rule, ready.evidence.line) == ("ready", "ready footer", tui.READY)
    assert "ready" not in kinds(terminal.feed_to(TUI, offset_after(TUI, "Permission required")))


def test_the_permission_panel_is_reported_once_it_stayed(terminal: Terminal) -> None:
    # The title is drawn before the choices: the panel counts once both show, and stayed.
    terminal.feed_to(TUI, offset_after(TUI, "Permission required"))
    assert "approval_requested" not in kinds(terminal.feed_to(TUI, offset_after(TUI, "Allow once")))
    assert terminal.delay == tui.PANEL_SETTLE_SECONDS
    assert terminal.approval_once_quiet() == ("tool", PERMISSION_DIALOG, "permission panel")
    # Answered by a key in the recording: gone, and closed once it stayed away.
    assert terminal.feed_to(TUI, offset_after(TUI, "no output")) == []
    [closed] = terminal.quiet()
    assert (closed.kind, closed.evidence.rule) == ("approval_resolved", "permission panel closed")


def test_a_panel_gone_before_it_settled_is_the_streams_to_tell(terminal: Terminal) -> None:
    terminal.feed_to(TUI, offset_after(TUI, "Allow once"))
    terminal.feed_to(TUI, offset_after(TUI, "no output"))  # answered within the settle delay
    assert terminal.quiet() == [], "never reported by the screen: no closing of its own"
    assert terminal.delay is None and not terminal.parser.panel.shown
