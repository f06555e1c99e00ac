"""The TUI rules on Gemini CLI 0.61.0's recorded bytes: the stream says when to look, the screen decides.

Recorded by Wardian's work against the real CLI in a 120x40 pseudo-terminal (`fixtures/recordings`):
an untrusted `--include-directories` folder answered with Enter and with Esc, then a turn; a
tool call answered with Enter ("Allow once"); the workspace's own question in a new git repository
answered "1. Trust folder" and "3. Don't trust", then a turn.
"""

import json
from pathlib import Path

import pytest

from wardian_core.provider import PTY_SOURCE, ProviderEvent
from wardian_core.provider.home import CLI_PID_FIELD
from wardian_core.provider.testing import Terminal, kinds, offset_after
from wardian_gemini import home, plugin, tui, workspace_trust
from wardian_gemini.profile import TOOL_DIALOG, TRUST_DIALOG, WORKSPACE_TRUST_DIALOG

FIXTURES = Path(__file__).parent / "fixtures" / "recordings"
TRUST_ACCEPTED = (FIXTURES / "gemini-tui-trust-accepted.raw").read_bytes()
TRUST_REJECTED = (FIXTURES / "gemini-tui-trust-rejected.raw").read_bytes()
TOOL_ACCEPTED = (FIXTURES / "gemini-tui-tool-accepted.raw").read_bytes()
WORKSPACE_ACCEPTED = (FIXTURES / "gemini-tui-workspace-trust-accepted.raw").read_bytes()
WORKSPACE_REJECTED = (FIXTURES / "gemini-tui-workspace-trust-rejected.raw").read_bytes()
SESSION_START = {"hook_event_name": "SessionStart", "session_id": "s-1", "source": "startup"}
# A trust answer restarts Gemini as a new process (0.61.0: the one that asked exits 199, its
# relaunching parent starts another, with the same arguments and so the same session id): the
# Gemini that asked, started before the question was seen, and the one started after the answer.
ASKING, RESTARTED = 4101, 4202
QUESTION_SEEN_AT = 100.0
STARTED_AT = {ASKING: 90.0, RESTARTED: 101.5}


def launched(terminal: Terminal, workspace_trusted: bool = True) -> Terminal:
    """As live: the launch left an empty hook log (a replay of bytes alone has none), in a workspace
    the user's trust file decides (the usual case) or one it has never seen."""
    home.hooks_file(terminal.ctx).parent.mkdir(parents=True, exist_ok=True)
    home.hooks_file(terminal.ctx).write_bytes(b"")
    rules = {str(terminal.ctx.workspace): "TRUST_FOLDER"} if workspace_trusted else {}
    trust_file = home.user_gemini_dir() / "trustedFolders.json"
    trust_file.parent.mkdir(parents=True, exist_ok=True)
    trust_file.write_text(json.dumps(rules))
    return terminal


@pytest.fixture
def terminal(make_ctx) -> Terminal:
    return launched(Terminal(plugin, make_ctx))


def started_after(pid: int, moment: float) -> bool:
    """As `process_start.started_after` tells of the two Gemini processes; any other is gone."""
    return pid in STARTED_AT and STARTED_AT[pid] > moment


@pytest.fixture
def new_folder(make_ctx) -> Terminal:
    terminal = launched(Terminal(plugin, make_ctx), workspace_trusted=False)
    terminal.parser.workspace.clock = lambda: QUESTION_SEEN_AT
    terminal.parser.workspace.started_after = started_after
    return terminal


def hook_fired(terminal: Terminal, event: str = "SessionStart", pid: int | None = ASKING, **fields: str) -> None:
    """A line of the hook log as the recorder appends it: the payload, then the pid of the Gemini
    process that ran the hook (none from a writer that cannot know it)."""
    record: dict[str, object] = {**SESSION_START, "hook_event_name": event, "timestamp": "2026-12-02T03:00:00.000Z"}
    record |= fields | ({CLI_PID_FIELD: pid} if pid else {})
    with home.hooks_file(terminal.ctx).open("a") as log:
        log.write(json.dumps(record, separators=(",", ":")) + "\n")


def session_start_hook_fired(terminal: Terminal, source: str = "startup") -> None:
    hook_fired(terminal, source=source)


def old_start_ended(terminal: Terminal, times: int = 3) -> None:
    """The SessionEnds of the Gemini that asked, as it exits to restart (live: three of them)."""
    for _ in range(times):
        hook_fired(terminal, "SessionEnd", ASKING, reason="exit")


def look(terminal: Terminal) -> list:
    snapshot = terminal.screen.snapshot()
    return list(terminal.parser.screen(snapshot).events)


def test_the_stream_asks_for_a_look_at_markers_only() -> None:
    parser = tui.GeminiScreen(PTY_SOURCE)
    assert not parser.feed(b"\x1b[1mThinking\x1b[0m (esc to cancel, 3s)").want_screen
    assert not parser.feed(b"\x1b[2mDo you trust the following\x1b[1Cfolders being added").want_screen
    assert parser.feed(b" to this workspace?\x1b[0m").want_screen


def test_the_prompt_is_ready_only_once_the_session_start_hook_fired(terminal: Terminal) -> None:
    assert terminal.feed_to(TOOL_ACCEPTED, offset_after(TOOL_ACCEPTED, tui.READY)) == []
    session_start_hook_fired(terminal)
    # The hook's arrival asks for a look (hooks_log.py): the same screen now says ready.
    [ready] = look(terminal)
    assert (ready.kind, ready.evidence.rule, ready.evidence.line) == (
        "ready",
        "ready prompt after hook SessionStart",
        tui.READY,
    )


def test_without_hooks_the_prompt_alone_is_ready_after_a_while(terminal: Terminal) -> None:
    """A user's settings can turn hooks off: no SessionStart ever comes, yet the agent gets ready."""
    assert terminal.feed_to(TOOL_ACCEPTED, offset_after(TOOL_ACCEPTED, tui.READY)) == []
    assert terminal.delay == tui.HOOKLESS_READY_SECONDS
    [ready] = terminal.quiet()
    assert (ready.kind, ready.evidence.rule) == ("ready", "ready prompt, no SessionStart hook within 15 s")


CLEAR = b"\x1b[2J\x1b[H"
RESUMING_FRAME = CLEAR + "⠼ Resuming session...".encode()
PROMPT_FRAME = CLEAR + f"│ >   {tui.READY}                │".encode()


@pytest.fixture
def resumed(make_ctx) -> Terminal:
    """A `--resume` launch: Gemini draws its prompt, then loads the earlier turns behind a banner."""
    terminal = launched(Terminal(plugin, lambda: make_ctx(session_mode="resume", resume_args=["--resume", "s-1"])))
    session_start_hook_fired(terminal, "resume")
    return terminal


def test_a_resumed_launch_is_ready_only_once_its_history_loaded(resumed: Terminal) -> None:
    # The prompt drawn before the resume began takes no input: not ready yet.
    assert resumed.feed_to(TOOL_ACCEPTED, offset_after(TOOL_ACCEPTED, tui.READY)) == []
    assert resumed.delay == tui.RESUME_SETTLE_SECONDS
    assert resumed.feed(RESUMING_FRAME) == []
    [ready] = resumed.feed(PROMPT_FRAME)
    assert (ready.kind, ready.evidence.rule) == (
        "ready",
        "ready prompt after hook SessionStart, the resumed history loaded",
    )
    assert resumed.quiet() == []  # the settle asked for before is moot


def test_a_resumed_launch_whose_banner_was_missed_is_ready_once_the_prompt_stood(resumed: Terminal) -> None:
    assert resumed.feed_to(TOOL_ACCEPTED, offset_after(TOOL_ACCEPTED, tui.READY)) == []
    [ready] = resumed.quiet()
    assert (ready.kind, ready.evidence.rule) == (
        "ready",
        "ready prompt after hook SessionStart, no resume banner within 2 s",
    )


def test_a_chat_turn_quoting_the_banner_is_not_the_banner(resumed: Terminal) -> None:
    quoted = CLEAR + b"> Resuming session... is what it said\r\n" + f"│ >   {tui.READY}   │".encode()
    assert resumed.feed(quoted) == []
    [ready] = resumed.quiet()
    assert ready.evidence.rule.endswith("no resume banner within 2 s")


def test_the_tool_box_is_reported_once_settled_and_closes_when_answered(terminal: Terminal) -> None:
    session_start_hook_fired(terminal)
    opened = terminal.feed_to(TOOL_ACCEPTED, offset_after(TOOL_ACCEPTED, tui.APPROVAL))
    assert kinds(opened) == ["ready"]
    assert terminal.delay == tui.APPROVAL_SETTLE_SECONDS
    assert terminal.approval_once_quiet() == ("tool", TOOL_DIALOG, "approval box")
    # Gone from a look: closed only once it stayed away (a repaint in pieces must not close it).
    assert terminal.feed_to(TOOL_ACCEPTED, len(TOOL_ACCEPTED)) == []
    assert terminal.delay == tui.APPROVAL_SETTLE_SECONDS
    closed = terminal.quiet()
    assert [(e.kind, e.evidence.rule) for e in closed] == [("approval_resolved", "approval box closed")]


# These recordings have no hooks; live (0.61.0 through `wardian`) the dialog is reported before the
# agent is ready, so here the SessionStart hook fires once the dialog is on screen.


def test_the_trust_dialog_asks_before_ready_and_enter_accepts_it(terminal: Terminal) -> None:
    [asked] = terminal.feed_to(TRUST_ACCEPTED, offset_after(TRUST_ACCEPTED, "3. No"))
    session_start_hook_fired(terminal)
    assert (asked.kind, asked.reason, asked.dialog, asked.evidence.rule) == (
        "approval_requested",
        "trust",
        TRUST_DIALOG,
        "trust dialog",
    )
    assert (asked.message or "").endswith("/extra"), asked.message  # the folder the dialog names
    # The box is gone and the prompt back; a cancel would say so a moment later: wait, then read.
    assert terminal.feed_to(TRUST_ACCEPTED, offset_after(TRUST_ACCEPTED, tui.READY, terminal.fed)) == []
    assert terminal.delay == tui.TRUST_SETTLE_SECONDS
    answered, ready = terminal.quiet()
    assert (answered.kind, answered.answer, answered.evidence.rule) == (
        "approval_resolved",
        "accepted",
        "trust dialog answered",
    )
    assert (ready.kind, ready.evidence.rule) == ("ready", "ready prompt after hook SessionStart")
    assert terminal.feed_to(TRUST_ACCEPTED, len(TRUST_ACCEPTED)) == [], "one answer, one ready"


def test_esc_on_the_trust_dialog_is_a_rejection_read_from_the_chat(terminal: Terminal) -> None:
    assert kinds(terminal.feed_to(TRUST_REJECTED, offset_after(TRUST_REJECTED, "3. No"))) == ["approval_requested"]
    session_start_hook_fired(terminal)
    left = terminal.feed_to(TRUST_REJECTED, len(TRUST_REJECTED))
    assert [(e.kind, e.answer, e.evidence.line) for e in left] == [
        ("approval_resolved", "rejected", tui.NOT_ADDED),
        ("ready", None, tui.READY),
    ]


# The workspace's own question, on a folder the user's trust file does not decide. Live (0.61.0,
# Wardian's hooks an extension's) the first start's SessionStart fires about when the question
# shows: as the prompt is first drawn, about 0.5 s after the question (over 1 s under load), or
# not at all when a person answered in an attached terminal before its hooks were set up. The
# question is reported once that SessionStart fired: an answer before it can be lost by Gemini.


def asked_about_the_workspace(new_folder: Terminal, recording: bytes) -> ProviderEvent:
    """Up to the question: the prompt drawn before it is no ready, though the hook fired."""
    session_start_hook_fired(new_folder)
    assert new_folder.feed_to(recording, offset_after(recording, tui.READY)) == []
    assert new_folder.delay == workspace_trust.QUESTION_SETTLE_SECONDS
    [asked] = new_folder.feed_to(recording, offset_after(recording, workspace_trust.LAST_OPTION))
    assert new_folder.quiet() == [], "the wait for a question ends with the question"
    return asked


def asked_before_any_hook(new_folder: Terminal) -> None:
    """Up to the question, the hook log still empty: Gemini still starting, the question is held."""
    assert new_folder.feed_to(WORKSPACE_ACCEPTED, offset_after(WORKSPACE_ACCEPTED, workspace_trust.LAST_OPTION)) == []
    assert new_folder.parser.workspace.held


def reported_once_started(new_folder: Terminal) -> None:
    """The first start's SessionStart, late: the held question is reported at the look it asks for."""
    session_start_hook_fired(new_folder)
    [asked] = look(new_folder)
    assert (asked.kind, asked.dialog) == ("approval_requested", WORKSPACE_TRUST_DIALOG)


def restart_read(new_folder: Terminal, reported: bool = True) -> None:
    """`reported`: the question was reported, so its answer is; one a person gave before is not."""
    answered = new_folder.feed_to(WORKSPACE_ACCEPTED, offset_after(WORKSPACE_ACCEPTED, workspace_trust.RESTARTING))
    assert [(e.kind, e.answer) for e in answered] == ([("approval_resolved", "accepted")] if reported else [])


def prompt_read(new_folder: Terminal) -> list[ProviderEvent]:
    """The prompt below the restart message: the old start's, drawn again, or the restarted one's."""
    return new_folder.feed_to(WORKSPACE_ACCEPTED, offset_after(WORKSPACE_ACCEPTED, tui.READY, new_folder.fed))


def ready_after_hook(events: list[ProviderEvent]) -> bool:
    return [(e.kind, e.evidence.rule) for e in events] == [("ready", "ready prompt after hook SessionStart")]


def test_the_workspace_question_asks_with_its_options_before_ready(new_folder: Terminal) -> None:
    asked = asked_about_the_workspace(new_folder, WORKSPACE_ACCEPTED)
    assert (asked.kind, asked.reason, asked.dialog, asked.evidence.rule, asked.evidence.line) == (
        "approval_requested",
        "trust",
        WORKSPACE_TRUST_DIALOG,
        "workspace trust dialog",
        workspace_trust.QUESTION,
    )
    assert asked.message == (
        "Gemini asks whether to trust the files in its workspace folder "
        "(1. Trust folder (repo) / 2. Trust parent folder (rec-accept) / 3. Don't trust)"
    )


def test_the_numbered_tips_above_the_question_are_not_its_options(new_folder: Terminal) -> None:
    tips = CLEAR + b"1. Create GEMINI.md files to customize your interactions\r\n"
    box = f"│ {workspace_trust.QUESTION} │\r\n│ ● 1. Trust folder (p) │\r\n│   {workspace_trust.LAST_OPTION} │".encode()
    session_start_hook_fired(new_folder)
    [asked] = new_folder.feed(tips + box)
    assert (asked.message or "").endswith("(1. Trust folder (p) / 3. Don't trust)"), asked.message


def test_a_question_drawn_before_gemini_finished_starting_is_reported_once_its_session_start_fired(
    new_folder: Terminal,
) -> None:
    """Under load CI's answer came while Gemini was still starting (its SessionStart 0.1 s after
    the restart message): as its start-up ended, Gemini's box read the new rule, closed, and took
    the restart with it. The agent stayed `starting` at the prompt of a Gemini that never
    restarted. The question now waits for the asking Gemini's SessionStart."""
    asked_before_any_hook(new_folder)
    assert new_folder.delay == tui.HOOKLESS_READY_SECONDS, "a look after the hookless wait"
    assert look(new_folder) == [], "still starting: no question to answer yet"
    reported_once_started(new_folder)
    assert look(new_folder) == [], "reported once"


def test_with_hooks_off_the_question_is_reported_once_a_prompt_would_count_without_them(
    new_folder: Terminal,
) -> None:
    """The user's settings can turn hooks off: no SessionStart comes, and the question is reported
    after the wait a prompt gets without one (the risk of Gemini's lost restart left to it)."""
    asked_before_any_hook(new_folder)
    [asked] = new_folder.quiet()
    assert (asked.kind, asked.dialog) == ("approval_requested", WORKSPACE_TRUST_DIALOG)


def test_a_question_a_person_answered_before_it_was_reported_ends_with_no_event(new_folder: Terminal) -> None:
    """Refused in an attached terminal while Gemini was starting: the box closes with no event, and
    the prompt is ready once the hook fired."""
    asked_before_any_hook(new_folder)
    gemini_decided(new_folder, "DO_NOT_TRUST")
    session_start_hook_fired(new_folder)
    left = new_folder.feed(CLEAR + tui.READY.encode())
    assert [(e.kind, e.evidence.rule) for e in left] == [("ready", "ready prompt after hook SessionStart")]


def test_trusting_the_workspace_is_read_from_the_restart_then_the_new_prompt_is_ready(new_folder: Terminal) -> None:
    asked_about_the_workspace(new_folder, WORKSPACE_ACCEPTED)
    [answered] = new_folder.feed_to(WORKSPACE_ACCEPTED, offset_after(WORKSPACE_ACCEPTED, workspace_trust.RESTARTING))
    assert (answered.kind, answered.answer, answered.evidence.rule) == (
        "approval_resolved",
        "accepted",
        workspace_trust.ACCEPTED_RULE,
    )
    # The restarted Gemini draws below the old box, which stays on screen: it is not asked again.
    # Its prompt is ready once the new start's SessionStart fired: before it, what was typed would
    # be echoed by a terminal back in cooked mode between the two starts, and lost.
    assert prompt_read(new_folder) == []
    old_start_ended(new_folder)
    assert look(new_folder) == [], "the old start's SessionEnds: the new one is awaited"
    hook_fired(new_folder, pid=RESTARTED)
    assert ready_after_hook(look(new_folder))
    assert new_folder.feed_to(WORKSPACE_ACCEPTED, len(WORKSPACE_ACCEPTED)) == []


def test_a_restart_read_after_the_new_start_fired_its_hook_is_ready_at_its_prompt(new_folder: Terminal) -> None:
    """Under load CI read the restart message from the screen only after the restarted Gemini's
    SessionStart was in the log: the starts counted then included the new one, and ready waited
    for a third start that never came (the agent stayed `starting` at its prompt)."""
    asked_about_the_workspace(new_folder, WORKSPACE_ACCEPTED)
    old_start_ended(new_folder)
    hook_fired(new_folder, pid=RESTARTED)
    restart_read(new_folder)
    assert ready_after_hook(prompt_read(new_folder))


def test_a_first_start_hook_after_the_question_then_a_late_restart_is_ready_at_its_prompt(
    new_folder: Terminal,
) -> None:
    """Live the question is on screen about 0.5 s before the first start's SessionStart fires, and
    the restart message can be read after the restarted Gemini's SessionStart too."""
    asked_before_any_hook(new_folder)
    reported_once_started(new_folder)
    old_start_ended(new_folder)
    hook_fired(new_folder, pid=RESTARTED)
    restart_read(new_folder)
    assert ready_after_hook(prompt_read(new_folder))


def test_the_restarted_start_alone_in_the_log_is_ready_at_its_prompt(new_folder: Terminal) -> None:
    """Answered (by a person, in an attached terminal) before the first start set up its hooks, the
    first start fires none: the restarted start's SessionStart is the log's only record. CI read
    the restart message after it was written, counted it as the old start's, and waited for a
    second start that never came."""
    asked_before_any_hook(new_folder)
    hook_fired(new_folder, pid=RESTARTED)
    restart_read(new_folder, reported=False)
    assert ready_after_hook(prompt_read(new_folder))


def test_a_restart_read_before_any_hook_waits_for_the_restarted_start(new_folder: Terminal) -> None:
    asked_before_any_hook(new_folder)
    restart_read(new_folder, reported=False)
    assert prompt_read(new_folder) == []
    hook_fired(new_folder, pid=RESTARTED)
    assert ready_after_hook(look(new_folder))


def test_the_old_start_s_session_start_after_the_restart_message_is_not_the_new_start(new_folder: Terminal) -> None:
    """The first start can finish setting up during its exit, past the point where it would fire
    SessionEnd: its SessionStart, written after the restart message was read and with no
    SessionEnd, is still the old start's (its process, started before the question)."""
    asked_before_any_hook(new_folder)
    restart_read(new_folder, reported=False)
    assert prompt_read(new_folder) == []
    hook_fired(new_folder, pid=ASKING, timestamp="2026-12-02T03:00:09.000Z")
    assert look(new_folder) == [], "the old start's prompt, its terminal about to go back to cooked mode"
    hook_fired(new_folder, pid=RESTARTED, timestamp="2026-12-02T03:00:12.000Z")
    assert ready_after_hook(look(new_folder))


def test_the_old_start_s_session_end_written_before_its_start_is_no_new_start(new_folder: Terminal) -> None:
    """The hooks of one start run at once, each in its own recorder: their lines can come in
    either order."""
    asked_before_any_hook(new_folder)
    restart_read(new_folder, reported=False)
    assert prompt_read(new_folder) == []
    old_start_ended(new_folder, times=1)
    session_start_hook_fired(new_folder)
    assert look(new_folder) == []
    hook_fired(new_folder, pid=RESTARTED)
    assert ready_after_hook(look(new_folder))


def test_starts_whose_process_cannot_be_told_go_by_the_log_order(new_folder: Terminal) -> None:
    """Records without the pid of the Gemini that fired them (a writer that cannot know it): the
    new start is a SessionStart after the old start's SessionEnd."""
    asked_before_any_hook(new_folder)
    hook_fired(new_folder, pid=None)
    assert kinds(look(new_folder)) == ["approval_requested"]
    restart_read(new_folder)
    assert prompt_read(new_folder) == []
    hook_fired(new_folder, "SessionEnd", pid=None, reason="exit")
    assert look(new_folder) == []
    hook_fired(new_folder, pid=None)
    assert ready_after_hook(look(new_folder))


def gemini_decided(terminal: Terminal, level: str) -> None:
    """The user's answer as Gemini writes it to the trust file when the box closes."""
    trust_file = home.user_gemini_dir() / "trustedFolders.json"
    trust_file.write_text(json.dumps({str(terminal.ctx.workspace): level}))


def test_refusing_the_workspace_is_the_box_gone_with_no_restart(new_folder: Terminal) -> None:
    asked_about_the_workspace(new_folder, WORKSPACE_REJECTED)
    gemini_decided(new_folder, "DO_NOT_TRUST")
    left = new_folder.feed_to(WORKSPACE_REJECTED, offset_after(WORKSPACE_REJECTED, tui.READY, new_folder.fed))
    assert [(e.kind, e.answer, e.evidence.rule) for e in left] == [
        ("approval_resolved", "rejected", workspace_trust.REJECTED_RULE),
        ("ready", None, "ready prompt after hook SessionStart"),
    ]


def test_a_closed_box_the_trust_file_does_not_decide_is_a_refusal_once_no_restart_came(new_folder: Terminal) -> None:
    asked_about_the_workspace(new_folder, WORKSPACE_REJECTED)
    assert new_folder.feed_to(WORKSPACE_REJECTED, len(WORKSPACE_REJECTED)) == []
    assert new_folder.delay == workspace_trust.CLOSE_SETTLE_SECONDS
    left = new_folder.quiet()
    assert [(e.kind, e.answer, e.evidence.rule) for e in left] == [
        ("approval_resolved", "rejected", workspace_trust.REJECTED_RULE),
        ("ready", None, "ready prompt after hook SessionStart"),
    ]


def test_a_prompt_drawn_before_the_restart_message_is_no_refusal_when_gemini_wrote_trust(
    new_folder: Terminal,
) -> None:
    """Under load Gemini drew its prompt between closing the box and "restarting": CI read that
    frame as a refusal. The trust file has the answer; the restart is still awaited, so the
    prompt of the Gemini about to restart is not taken as ready."""
    asked_about_the_workspace(new_folder, WORKSPACE_ACCEPTED)
    gemini_decided(new_folder, "TRUST_FOLDER")
    assert new_folder.feed(CLEAR + tui.READY.encode()) == []
    # The old prompt stays on screen above the restart message: not the restarted Gemini's.
    [answered] = new_folder.feed(b"\r\n" + workspace_trust.RESTARTING.encode() + b"\r\n")
    assert (answered.kind, answered.answer, answered.evidence.rule) == (
        "approval_resolved",
        "accepted",
        workspace_trust.ACCEPTED_RULE,
    )
    assert new_folder.feed(b"\r\n" + tui.READY.encode()) == [], "the restarted Gemini's start is awaited"
    hook_fired(new_folder, pid=RESTARTED)
    assert ready_after_hook(look(new_folder))


def test_a_closed_box_the_trust_file_trusts_is_accepted_when_no_restart_message_came(new_folder: Terminal) -> None:
    asked_about_the_workspace(new_folder, WORKSPACE_ACCEPTED)
    gemini_decided(new_folder, "TRUST_PARENT")
    assert new_folder.feed(CLEAR + tui.READY.encode()) == []
    [answered, *_] = new_folder.quiet()
    assert (answered.answer, answered.evidence.rule) == ("accepted", workspace_trust.ACCEPTED_FILE_RULE)
