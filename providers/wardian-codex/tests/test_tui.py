"""The TUI rules: the stream says when to look, the screen (real Codex 0.169.0 output) decides."""

import json
from functools import partial
from pathlib import Path

from wardian_codex import plugin, tui
from wardian_codex.profile import APPROVAL_SETTLE_SECONDS, READY_WITHOUT_SIGNAL_SECONDS, TRUST_SETTLE_SECONDS
from wardian_core.provider import PTY_SOURCE
from wardian_core.provider.testing import StatusCourse, Terminal, kinds, offset_after

FIXTURES = Path(__file__).parent / "fixtures"
# A thread id, as Codex names its lock file and rollout.
THREAD = "01a21ac1-2641-7311-b549-dfed9bb97ded"
APPROVAL = (FIXTURES / "recordings" / "codex-tui-approval.raw").read_bytes()
REJECTED_THEN_APPROVED = (FIXTURES / "codex-tui-approval-rejected-then-approved.raw").read_bytes()
TRUST_ANSWERED = (FIXTURES / "codex-tui-trust-answered.raw").read_bytes()
TRUST_REJECTED = (FIXTURES / "codex-tui-trust-rejected.raw").read_bytes()
# A resumed thread, its status line standing when Codex signals idle (the other recordings
# typed their prompt before Codex had started: "Waiting for startup").
TURN = (FIXTURES / "codex-tui-resume-thread.raw").read_bytes()


def test_the_stream_asks_for_the_screen_only_when_a_marker_shows() -> None:
    screen = tui.CodexScreen(PTY_SOURCE)
    assert not screen.feed(b"\x1b[1mWorking\x1b[0m (3s)").want_screen
    assert screen.feed(b"\x1b[2m? for\x1b[1Cshortcuts\x1b[0m").want_screen
    assert not screen.feed(b"\x1b[2J").want_screen, "a marker already looked at counts once"


def test_a_marker_split_across_reads_is_seen_once() -> None:
    screen, data = tui.CodexScreen(PTY_SOURCE), b"\x1b[1mTrust this\x1b[0m folder?"
    looks = [screen.feed(data[i : i + 1]).want_screen for i in range(len(data))]
    assert looks.count(True) == 1


def after_idle_signal(data: bytes) -> int:
    return data.index(tui.IDLE_SIGNAL) + len(tui.IDLE_SIGNAL)


def test_ready_once_the_status_line_shows_and_codex_signalled_its_session_idle(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    # Drawn before Codex read the folder's trust: a trust question may still come over it.
    assert terminal.feed_to(TURN, offset_after(TURN, "? for shortcuts")) == []
    assert terminal.delay == READY_WITHOUT_SIGNAL_SECONDS
    [ready] = terminal.feed_to(TURN, after_idle_signal(TURN))
    assert (ready.kind, ready.evidence.rule, ready.evidence.line) == ("ready", "status line", "? for shortcuts")
    assert "ready" not in kinds(terminal.feed_to(TURN, len(TURN)))


def test_the_status_line_redrawn_while_ready_is_awaited_asks_for_no_look(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(TURN, offset_after(TURN, "? for shortcuts"))
    assert terminal.delay == READY_WITHOUT_SIGNAL_SECONDS
    # The idle signal or the delay asks for the look that makes it ready; a redraw would replay for nothing.
    assert not terminal.parser.feed(b"\x1b[2m? for\x1b[1Cshortcuts\x1b[0m").want_screen


def test_the_idle_signal_cut_between_two_reads_is_seen(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    cut = after_idle_signal(TURN) - 4
    assert terminal.feed_to(TURN, cut) == []
    assert kinds(terminal.feed_to(TURN, cut + 4)) == ["ready"]


def test_a_status_line_that_stands_alone_long_enough_is_ready(make_ctx) -> None:
    """A version without the idle signal is still seen ready, later: a resume names its thread."""
    terminal = Terminal(plugin, partial(make_ctx, provider_session_id=THREAD, session_mode="resume"))
    terminal.feed_to(TURN, offset_after(TURN, "? for shortcuts"))
    [ready] = terminal.quiet()
    assert (ready.kind, ready.evidence.rule) == ("ready", "status line, no idle signal after 3 s")


def test_the_trust_dialog_asks_once_and_enter_answers_it(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    opened = terminal.feed_to(TRUST_ANSWERED, offset_after(TRUST_ANSWERED, "Trust this folder?"))
    # Never idle before the question: the status line drawn under it had no idle signal.
    assert kinds(opened) == ["approval_requested"]
    asked = opened[0]
    assert (asked.reason, asked.dialog, asked.evidence.rule) == ("trust", "trust", "trust dialog")
    assert asked.message == (
        "Codex asks as it starts (before its prompt) whether to trust the workspace: Trust this folder?"
    )
    # The chat view is back; whether it stays (Enter) or gives way to the command center (Esc)
    # shows a little later, and a trust only once Codex started its thread (the host learns its
    # id from the thread's lock file).
    assert terminal.feed_to(TRUST_ANSWERED, len(TRUST_ANSWERED)) == []
    assert terminal.delay == TRUST_SETTLE_SECONDS
    assert terminal.quiet() == [] and terminal.delay == TRUST_SETTLE_SECONDS, "looked at again"
    terminal.ctx.provider_session_id = THREAD
    [answered] = terminal.quiet()
    assert (answered.kind, answered.answer, answered.evidence.rule) == (
        "approval_resolved",
        "accepted",
        "trust dialog answered",
    )
    # This recording ends before Codex's idle signal: its status line, standing, is ready later.
    assert terminal.delay == READY_WITHOUT_SIGNAL_SECONDS
    assert kinds(terminal.quiet()) == ["ready"]


def test_a_trust_question_later_than_the_delay_still_comes_before_ready(make_ctx) -> None:
    """Under load Codex draws its trust question more than the delay after the status line;
    it has started no thread meanwhile, so the status line alone is not ready yet."""
    terminal = Terminal(plugin, make_ctx)
    assert terminal.feed_to(TRUST_ANSWERED, offset_after(TRUST_ANSWERED, "? for shortcuts")) == []
    assert terminal.quiet() == []
    assert terminal.delay == READY_WITHOUT_SIGNAL_SECONDS, "asked again: the thread may start later"
    assert terminal.quiet() == []
    asked = terminal.feed_to(TRUST_ANSWERED, offset_after(TRUST_ANSWERED, "Trust this folder?"))
    assert kinds(asked) == ["approval_requested"]


def test_esc_on_the_trust_dialog_is_a_rejection(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    assert kinds(terminal.feed_to(TRUST_REJECTED, offset_after(TRUST_REJECTED, "Trust this folder?"))) == [
        "approval_requested"
    ]
    [left] = terminal.feed_to(TRUST_REJECTED, len(TRUST_REJECTED))
    assert (left.kind, left.answer, left.evidence.line) == ("approval_resolved", "rejected", "Agent command center")
    # The command center signals idle under a status line, but it is not the workspace's prompt.
    assert terminal.parser.idle_signal
    assert terminal.quiet() == []  # the settle started by the chat view's flash is void


def test_the_trust_dialog_is_not_answered_while_the_chat_view_only_flashes(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(TRUST_REJECTED, offset_after(TRUST_REJECTED, "Trust this folder?"))
    flash = offset_after(TRUST_REJECTED, "? for shortcuts", offset_after(TRUST_REJECTED, "Trust this folder?"))
    assert terminal.feed_to(TRUST_REJECTED, flash) == [] and terminal.delay == TRUST_SETTLE_SECONDS
    assert "approval_resolved" not in kinds(terminal.feed_to(TRUST_REJECTED, flash + 8))


def test_a_chat_view_that_flashes_longer_than_the_delay_is_no_trust_without_a_thread(make_ctx) -> None:
    """Under load Codex drew its Agent command center more than the settle delay after the chat
    view's flash (2026-12-02): that flash is not a trust while no thread started."""
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(TRUST_REJECTED, offset_after(TRUST_REJECTED, "Trust this folder?"))
    flash = offset_after(TRUST_REJECTED, "? for shortcuts", offset_after(TRUST_REJECTED, "Trust this folder?"))
    assert terminal.feed_to(TRUST_REJECTED, flash) == []
    assert terminal.quiet() == [] and terminal.quiet() == [], "the flash stood two delays: still no answer"
    [left] = terminal.feed_to(TRUST_REJECTED, len(TRUST_REJECTED))
    assert (left.kind, left.answer) == ("approval_resolved", "rejected")


def test_the_command_dialog_is_reported_once_it_settled_with_the_command_on_screen(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(APPROVAL, offset_after(APPROVAL, "ECHO:tui2"))
    drawn = offset_after(APPROVAL, "Press enter to confirm or esc to cancel")
    # The prompt was typed before Codex had started: its status line is back only now.
    assert kinds(terminal.feed_to(APPROVAL, drawn)) == ["ready"] and terminal.delay == APPROVAL_SETTLE_SECONDS
    [asked] = terminal.quiet()
    assert (asked.kind, asked.reason, asked.dialog) == ("approval_requested", "tool", "exec")
    assert asked.evidence.line == "touch codex_approved.txt"
    assert asked.message == "Codex asks to run: touch codex_approved.txt"
    [answered] = terminal.feed_to(APPROVAL, len(APPROVAL))
    assert (answered.kind, answered.answer) == ("approval_resolved", "accepted")
    assert (answered.evidence.line or "").startswith("✔ You approved codex to run touch codex_approved.txt")


def test_a_command_dialog_asked_for_by_a_permission_request_hook_is_named_by_it(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    request = {
        "session_id": "01a20592-21a7-7ad2-8ece-818c8e21955b",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "touch codex_approved.txt", "description": "needs the network"},
    }
    hooks_file = terminal.ctx.agent_dir / "codex" / "hooks.jsonl"
    hooks_file.parent.mkdir(parents=True)
    hooks_file.write_text(json.dumps(request) + "\n")
    terminal.feed_to(APPROVAL, offset_after(APPROVAL, "Press enter to confirm or esc to cancel"))
    [asked] = terminal.quiet()
    assert (asked.kind, asked.evidence.rule) == ("approval_requested", "approval dialog after hook PermissionRequest")
    assert (asked.reason, asked.dialog, asked.evidence.line) == ("tool", "exec", "touch codex_approved.txt")
    assert asked.message == "Codex asks to run Bash: touch codex_approved.txt (needs the network)"
    assert asked.data["tool_input"]["command"] == "touch codex_approved.txt"


def test_a_command_dialog_not_drawn_whole_yet_is_read_again_when_it_settled(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(APPROVAL, offset_after(APPROVAL, "Would you like to run the following command?"))
    assert terminal.parser.command is None and terminal.delay == APPROVAL_SETTLE_SECONDS
    terminal.feed_to(APPROVAL, offset_after(APPROVAL, "Press enter to confirm or esc to cancel"))
    [asked] = terminal.quiet()
    assert asked.evidence.line == "touch codex_approved.txt"


def test_each_answer_is_read_from_the_newest_answer_line(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    data = REJECTED_THEN_APPROVED
    events = terminal.feed_to(data, offset_after(data, "Press enter to confirm or esc to cancel"))
    events += terminal.quiet()
    second = offset_after(data, "Would you like to run the following command?", offset_after(data, "ECHO:x2"))
    events += terminal.feed_to(data, second)
    events += terminal.feed_to(data, offset_after(data, "Press enter to confirm or esc to cancel", second))
    events += terminal.quiet()
    events += terminal.feed_to(data, len(data))
    # The rejected answer's line is still on screen when the second dialog is answered.
    assert "You canceled the request to run" in "".join(terminal.screen.rows())
    assert [(event.kind, event.answer, (event.evidence.line or "")[:33]) for event in events] == [
        ("ready", None, "? for shortcuts"),
        ("approval_requested", None, "touch refused.txt"),
        ("approval_resolved", "rejected", "✗ You canceled the request to run"),
        ("approval_requested", None, "touch ok.txt"),
        ("approval_resolved", "accepted", "✔ You approved codex to run touch"),
    ]


def test_a_dialog_answered_before_it_settled_is_said_left_which_ends_only_a_reported_wait(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    terminal.feed_to(APPROVAL, offset_after(APPROVAL, "Press enter to confirm or esc to cancel"))
    [left] = terminal.feed_to(APPROVAL, len(APPROVAL))
    assert (left.kind, left.answer) == ("approval_resolved", "accepted")
    assert terminal.quiet() == []  # gone: never reported now
    # Nobody was told it waited: no status changes. But a host that took the agent on after a
    # restart finds it waiting on the dialog its predecessor reported, answered before this
    # parser's settle: it leaves the wait then, not at the turn's end.
    assert StatusCourse("processing").apply(left.kind) is None
    assert StatusCourse("action_required", before_dialog="processing").apply(left.kind) == "processing"


def test_the_command_is_the_dollar_line_below_the_question() -> None:
    rows = ["", "  Would you like to run the following command?", "", "  Reason: x", "", "  $ touch a.txt", "", "› 1."]
    assert tui.command_on(rows) == "touch a.txt"
    wrapped = [*rows[:5], "  $ printf 'a very long' \\", "    'command'", ""]
    assert tui.command_on(wrapped) == "printf 'a very long' \\ 'command'"
    assert tui.command_on(["  $ echo not a dialog"]) is None
