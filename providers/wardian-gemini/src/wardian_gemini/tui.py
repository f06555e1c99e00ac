"""Gemini CLI's TUI (`pty`): the ready prompt, the folder-trust dialogs, the tool box (0.61.0).

The stream only says when to look (a marker in its squeezed text); the rules read the screen
as a person sees it. Turns and tools come from the hooks (hooks_log.py); the screen decides
readiness (with the SessionStart hook, and on a resume once its history loaded), shows the
folder-trust dialogs — the workspace's own question (workspace_trust.py) and the one of
`--include-directories`; no hook tells of either — and is the fallback for the tool box.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent
from wardian_core.provider.home import ready_rule, session_records
from wardian_core.provider.parsing import (
    BoxReport,
    MarkerWatch,
    ScreenSnapshot,
    Settle,
    SettledBox,
    event,
    screen_text,
    squeeze,
)
from wardian_gemini import limits, workspace_trust
from wardian_gemini.profile import TOOL_DIALOG, TRUST_DIALOG

READY = "Type your message or @path/to/file"
APPROVAL = "Allow once"
APPROVAL_SETTLE_SECONDS = 0.5
# Reported once it stayed (the ToolPermission hook usually did already); no hook tells its close.
APPROVAL_BOX = BoxReport(
    dialog=TOOL_DIALOG, rule="approval box", marker=APPROVAL, message="Gemini asks before running a tool"
)
# Drawn before the prompt when an include directory has no trust decision yet (folder trust on).
TRUST = "Do you trust the following folders being added to this workspace?"
# What Esc ("Operation cancelled. The following directories were not added:") and "3. No"
# ("… were not added because they were not trusted") leave in the chat, a moment after the box.
NOT_ADDED = "directories were not added"
# No message tells an accept: the box gone this long with no "not added" is one. 0.5 s proved
# too short on a loaded machine (the message came later, a refusal read as an accept).
TRUST_SETTLE_SECONDS = 2.0
# `--resume` loads the earlier turns after the prompt is first drawn (and after SessionStart):
# meanwhile this line replaces the prompt, and what is typed is dropped (0.61.0 renders its
# input box only while `!isResuming`). Ready needs the prompt back once it went.
RESUMING = "Resuming session..."
# Its row: the spinner (a braille "dots" frame), then the line; a chat turn quoting it is not it.
RESUMING_ROW = re.compile(r"^[\u2800-\u28ff] Resuming session\.\.\.")
# A resumed launch whose banner was not seen (drawn and gone between two looks) is ready once
# its prompt has stood this long after SessionStart with no banner.
RESUME_SETTLE_SECONDS = 2.0
# A user whose settings turn hooks off (`hooksConfig.enabled: false`) gets no SessionStart:
# the prompt alone is ready after this long. On a loaded machine the hook came over 5 s after
# the prompt was drawn; ready then lied about which signal it had.
HOOKLESS_READY_SECONDS = 15.0
# The prompt is redrawn all the time: worth a look only until ready, or to see a box gone.
READY_MARKERS = (squeeze(READY), squeeze(RESUMING))
BOX_MARKERS = (squeeze(APPROVAL), squeeze(TRUST))


@dataclass
class TerminalState:
    stream: MarkerWatch = field(default_factory=MarkerWatch)
    ready: bool = False
    box: SettledBox = field(default_factory=lambda: SettledBox(APPROVAL_SETTLE_SECONDS))
    # The folder-trust dialog was reported and its answer is not read yet.
    trust_open: bool = False
    trust_settle: Settle = field(default_factory=lambda: Settle(TRUST_SETTLE_SECONDS))
    workspace: workspace_trust.WorkspaceTrust = field(default_factory=workspace_trust.WorkspaceTrust)
    hookless: Settle = field(default_factory=lambda: Settle(HOOKLESS_READY_SECONDS))
    hookless_expired: bool = False
    settled_look: bool = False
    # A resumed launch is ready only once its history loaded (RESUMING).
    resume_banner_seen: bool = False
    resume_settle: Settle = field(default_factory=lambda: Settle(RESUME_SETTLE_SECONDS))
    resume_settled: bool = False
    limit: limits.LimitDialog = field(default_factory=limits.LimitDialog)


def watch_stream(data: bytes, state: TerminalState) -> ParseResult:
    dialog_open = state.box.shown or state.trust_open or state.workspace.open
    markers = BOX_MARKERS + (READY_MARKERS if dialog_open or not state.ready else ())
    markers += (squeeze(NOT_ADDED),) if state.trust_open else ()
    markers += () if state.workspace.answered else workspace_trust.MARKERS
    # The usage-limit dialog (limits.py); once told, the prompt's return lets the next one be told.
    markers += limits.MARKERS + (READY_MARKERS if state.limit.shown else ())
    return ParseResult(want_screen=state.stream.saw_any(data, markers))


def read_screen(
    source: OutputSource, screen: ScreenSnapshot, state: TerminalState, hooks_file: Path | None, resumed: bool
) -> ParseResult:
    """`hooks_file`: the agent's hook log (None in a replay: the screen alone decides);
    `resumed`: the launch resumes a session (`--resume`)."""
    text = screen_text(screen.rows)
    lines = _box_lines(screen.rows)
    settled, state.settled_look = state.settled_look, False
    events, close_again = workspace_trust.look(source, lines, text, READY if READY in text else None, state.workspace)
    workspace_trust.note(events, state.workspace)
    if state.workspace.open:
        # The prompt drawn before the question must not count as ready without its hook later.
        state.hookless.cancel()
        state.hookless_expired = False
    trust_events, trust_again = _trust_dialog(source, text, lines, settled, state)
    events += trust_events
    box_events, call_again = state.box.events(source, APPROVAL in text, settled, APPROVAL_BOX)
    events += box_events
    events += limits.look(source, lines, state.limit)
    if resumed and not state.ready and any(RESUMING_ROW.match(row.strip()) for row in screen.rows):
        state.resume_banner_seen = True
        state.resume_settle.cancel()
    elif READY in text and APPROVAL not in text and not (state.ready or state.trust_open or state.workspace.open):
        ready_events, look_again = _ready(source, hooks_file, state, resumed)
        events += ready_events
        call_again = min(filter(None, [call_again, look_again]), default=None)
    return ParseResult(events=events, call_again_after=call_again or trust_again or close_again)


def settle_passed(state: TerminalState) -> ParseResult:
    """A settle delay passed: look again, to report a box still there, read a trust answer, or
    take the prompt as ready without the SessionStart hook."""
    box_due = state.box.due()
    trust_due = state.trust_settle.due() and state.trust_open
    hookless_due = state.hookless.due() and not state.ready
    resume_due = state.resume_settle.due() and not state.ready
    question_due = state.workspace.settle.due() and not state.ready
    close_due = state.workspace.closing.due() and state.workspace.open
    state.settled_look = box_due or trust_due
    state.hookless_expired = state.hookless_expired or hookless_due
    state.resume_settled = state.resume_settled or resume_due
    state.workspace.settled = state.workspace.settled or question_due
    state.workspace.close_settled = state.workspace.close_settled or close_due
    return ParseResult(want_screen=box_due or trust_due or hookless_due or resume_due or question_due or close_due)


def _ready(
    source: OutputSource, hooks_file: Path | None, state: TerminalState, resumed: bool
) -> tuple[list[ProviderEvent], float | None]:
    """The ready event once the prompt counts, or the delay after which to look again."""
    rule = ready_rule(hooks_file, state.hookless_expired, HOOKLESS_READY_SECONDS)
    if rule is None:
        return [], None if state.hookless.pending else state.hookless.start()
    waiting, look_again = workspace_trust.ready_wait(state.workspace)
    if waiting:
        return [], look_again
    if not workspace_trust.new_start_began(session_records(hooks_file), state.workspace):
        return [], None  # the new start's SessionStart asks for another look (hooks_log.py)
    if state.workspace.settled and not state.workspace.answered:
        rule += f", no trust question within {workspace_trust.QUESTION_SETTLE_SECONDS:g} s"
    if resumed and not state.resume_settled:
        if not state.resume_banner_seen:
            # The prompt drawn before the resume began: wait for the banner, or for the settle.
            return [], None if state.resume_settle.pending else state.resume_settle.start()
        rule += ", the resumed history loaded"
    elif resumed:
        rule += f", no resume banner within {RESUME_SETTLE_SECONDS:g} s"
    state.ready = True
    state.hookless.cancel()
    state.resume_settle.cancel()
    return [event("ready", source, rule, READY)], None


def _trust_dialog(
    source: OutputSource, text: str, lines: list[str], settled: bool, state: TerminalState
) -> tuple[list[ProviderEvent], float | None]:
    """Reported when drawn; its answer read from the chat once the box has been gone a while."""
    if TRUST in text:
        state.trust_settle.cancel()
        if state.trust_open:
            return [], None
        state.trust_open = True
        folders = [line[2:] for line in lines if line.startswith("- ")]  # one `- /path` each
        message = "Gemini asks whether to trust folders added to the workspace: " + ", ".join(folders)
        asked = event(
            "approval_requested", source, "trust dialog", TRUST, message=message, reason="trust", dialog=TRUST_DIALOG
        )
        return [asked], None
    if not state.trust_open:
        return [], None
    if NOT_ADDED in text:
        state.trust_open = False
        state.trust_settle.cancel()
        return [event("approval_resolved", source, "trust dialog answered", NOT_ADDED, answer="rejected")], None
    if settled:
        state.trust_open = False
        return [event("approval_resolved", source, "trust dialog answered", READY, answer="accepted")], None
    return [], state.trust_settle.start()


def _box_lines(rows: list[str]) -> list[str]:
    """The screen's rows with a dialog's side borders taken off."""
    return [row.strip().strip("│").strip() for row in rows]
