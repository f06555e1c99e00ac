"""The screen's permission panel beside the event stream, each read from OpenCode 1.18.33's
recordings through the parsers the plugin gives one launch: the screen reports only a panel the
stream did not tell of, whichever of the two the host read first."""

from collections.abc import Callable
from pathlib import Path

import pytest

from wardian_core.provider import ProviderEvent, SourceParser, SpawnContext
from wardian_core.provider.parsing import EventParser
from wardian_core.provider.testing import StatusCourse, Terminal, kinds, offset_after
from wardian_opencode import plugin, server

FIXTURES = Path(__file__).parent / "fixtures"
TUI = (FIXTURES / "shared" / "opencode-tui.raw").read_bytes()
# Two turns, each asking to run a command: the first accepted, the second rejected.
STREAM = list(EventParser().feed((FIXTURES / "recordings" / "opencode-events-approval.sse").read_bytes()))


@pytest.fixture
def terminal(make_ctx: Callable[[], SpawnContext]) -> Terminal:
    ctx = make_ctx()
    server.choose_port(ctx)  # as a launch does, before the host asks for any parser
    return Terminal(plugin, lambda: ctx)


def stream_parser(terminal: Terminal) -> SourceParser:
    # The host gives each source's parser its own copy of the launch's context.
    ctx = terminal.ctx.model_copy()
    source = server.events_source(ctx)
    assert source is not None
    parser: SourceParser | None = plugin.parse_output(ctx=ctx, source=source)
    assert parser is not None
    return parser


def read_stream(terminal: Terminal) -> list[ProviderEvent]:
    parser = stream_parser(terminal)
    return [event for data in STREAM for event in parser.feed(data).events]


def screen_after_settling(terminal: Terminal, end: int) -> list[ProviderEvent]:
    """What the screen tells once fed up to `end` and, when it asked, its settle delay passed."""
    told = terminal.feed_to(TUI, end)
    return told + (terminal.quiet() if terminal.delay is not None else [])


def course(events: list[ProviderEvent]) -> list[tuple[str, str]]:
    """The statuses the events lead to, each with the source of its change (as the host applies them)."""
    status = StatusCourse("idle")
    return [(event.evidence.source, target) for event in events if (target := status.apply(event.kind))]


def test_a_late_screen_does_not_report_a_panel_the_stream_asked_and_answered(terminal: Terminal) -> None:
    # Under load the host read the stream's whole turn (asked, rejected, idle) before the screen
    # that still showed the panel: reported then, it opened a dialog after the turn's end.
    assert "ready" in kinds(terminal.feed_to(TUI, offset_after(TUI, "ctrl+p commands")))
    stream = read_stream(terminal)
    assert course(stream)[-3:] == [
        ("opencode-events", "action_required"),
        ("opencode-events", "processing"),
        ("opencode-events", "idle"),
    ]
    screen = screen_after_settling(terminal, offset_after(TUI, "Allow once"))
    screen += screen_after_settling(terminal, offset_after(TUI, "no output"))  # and then gone
    assert "approval_requested" not in kinds(screen) and "approval_resolved" not in kinds(screen)
    assert course(stream + screen)[-1] == ("opencode-events", "idle")


def test_a_panel_the_stream_never_told_of_is_still_reported_and_closed(terminal: Terminal) -> None:
    # The stream told of earlier permissions, all answered; the screen then showed no panel
    # (its ready footer), and a new one the stream missed (e.g. while it reconnected).
    read_stream(terminal)
    assert "ready" in kinds(terminal.feed_to(TUI, offset_after(TUI, "ctrl+p commands")))
    asked = screen_after_settling(terminal, offset_after(TUI, "Allow once"))
    assert [(event.kind, event.evidence.rule) for event in asked] == [("approval_requested", "permission panel")]
    closed = screen_after_settling(terminal, offset_after(TUI, "no output"))
    assert [(event.kind, event.evidence.rule) for event in closed] == [("approval_resolved", "permission panel closed")]


def test_a_panel_the_stream_asks_about_before_it_settled_is_the_streams(terminal: Terminal) -> None:
    # The screen saw the panel first; the stream's ask came before the settle delay passed.
    parser = stream_parser(terminal)
    terminal.feed_to(TUI, offset_after(TUI, "Allow once"))
    asked_at = next(i for i, data in enumerate(STREAM) if b'"permission.asked"' in data)
    stream = [event for data in STREAM[: asked_at + 1] for event in parser.feed(data).events]
    assert kinds(stream)[-1] == "approval_requested"
    screen = terminal.quiet() + screen_after_settling(terminal, offset_after(TUI, "no output"))
    assert "approval_requested" not in kinds(screen) and "approval_resolved" not in kinds(screen)


def test_a_panel_the_screen_reported_first_is_closed_by_the_streams_reply(terminal: Terminal) -> None:
    # The stream's ask came after the screen had reported the panel, and the screen saw the panel
    # go before the stream's reply came: the answer is the stream's, not the screen's close.
    parser = stream_parser(terminal)
    assert kinds(screen_after_settling(terminal, offset_after(TUI, "Allow once")))[-1] == "approval_requested"
    replied_at = next(i for i, data in enumerate(STREAM) if b'"permission.replied"' in data)
    asked = [event for data in STREAM[:replied_at] for event in parser.feed(data).events]
    assert kinds(asked)[-1] == "approval_requested"
    screen = screen_after_settling(terminal, offset_after(TUI, "no output"))
    assert "approval_resolved" not in kinds(screen), "the screen closed a panel the stream answers"
    replied = [event for data in STREAM[replied_at : replied_at + 1] for event in parser.feed(data).events]
    assert [(event.kind, event.answer) for event in replied] == [("approval_resolved", "accepted")]
