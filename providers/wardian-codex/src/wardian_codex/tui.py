"""Codex's TUI (`pty`): the ready status line, the trust dialog, the command approval dialog.

The stream only says when to look: a marker in its squeezed text (the TUI draws spaces by
moving the cursor) asks the host for the screen, and the rules below read the screen as a
person sees it (Codex 0.169.0). Turns, command output and errors come from the rollout and
the hooks; a command dialog is reported from the screen (where it takes keys), named by the
PermissionRequest hook that asked for it.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from wardian_codex.hooks_log import pending_permission
from wardian_codex.profile import (
    APPROVAL_SETTLE_SECONDS,
    EXEC_DIALOG,
    READY_WITHOUT_SIGNAL_SECONDS,
    TRUST_DIALOG,
    TRUST_SETTLE_SECONDS,
)
from wardian_core.provider import OutputSource, ParseResult, ProviderEvent
from wardian_core.provider.parsing import (
    MarkerWatch,
    ScreenSnapshot,
    Settle,
    event,
    screen_text,
    squeeze,
    tool_data,
    tool_summary,
)

READY = "? for shortcuts"
# Codex's terminal state signal (an OSC 7501 sequence, `state=idle:app=codex`): sent once its
# session is up, never while its trust question waits. What makes the status line mean ready.
IDLE_SIGNAL = b"\x1b]7501;state=idle"
# Shown in a git workspace Codex does not trust yet; Enter trusts and continues.
TRUST = "Trust this folder?"
# Where Esc (or `2`) on the trust dialog leads: Codex's task list, not the workspace's chat.
COMMAND_CENTER = "Agent command center"
# The rule of a trust question answered with a trust: what carries it to the user (trust.py).
TRUST_ANSWERED = "trust dialog answered"
EXEC = "Would you like to run the following command?"
# The lines Codex leaves in the chat once the command dialog is answered ("✔ You approved codex
# to run touch a.txt this time", "✗ You canceled the request to run touch b.txt").
ANSWERS: tuple[tuple[str, Literal["accepted", "rejected"]], ...] = (
    ("You approved codex", "accepted"),
    ("You canceled the request to run", "rejected"),
    ("You did not approve", "rejected"),
    ("You denied codex", "rejected"),
)
# In the stream the whole answer phrase is awaited, so the look finds its line drawn.
STREAM_ANSWERS = ("You approved codex to run", *(line for line, answer in ANSWERS if answer == "rejected"))
# Dialogs are worth a look at any time; the status line (redrawn all the time), the answer
# lines and the command center only while a look can change something: a look replays output.
ALWAYS = (squeeze(TRUST), squeeze(EXEC))
STATUS_LINE = (squeeze(READY),)
ANSWER_MARKERS = tuple(squeeze(text) for text in STREAM_ANSWERS)
TRUST_ANSWER_MARKERS = (squeeze(COMMAND_CENTER), squeeze(READY))


@dataclass
class TerminalState:
    stream: MarkerWatch = field(default_factory=MarkerWatch)
    ready: bool = False
    # The trust dialog was reported and is not answered yet.
    trust_open: bool = False
    trust_settle: Settle = field(default_factory=lambda: Settle(TRUST_SETTLE_SECONDS))
    # The command dialog was on the last screen; reported once it settled.
    exec_open: bool = False
    exec_reported: bool = False
    exec_settle: Settle = field(default_factory=lambda: Settle(APPROVAL_SETTLE_SECONDS))
    command: str | None = None
    # The next look was asked for by a settle coming due.
    settled_look: bool = False
    # Codex signalled its session idle (IDLE_SIGNAL), or its status line stood long enough alone.
    idle_signal: bool = False
    signal_tail: bytes = b""
    status_line: Settle = field(default_factory=lambda: Settle(READY_WITHOUT_SIGNAL_SECONDS))
    status_line_alone: bool = False
    # The trust question was refused: Codex shows its command center, never the workspace's prompt.
    trust_refused: bool = False


def _markers(state: TerminalState) -> tuple[str, ...]:
    # A status line seen before the idle signal, ready waits on the signal or the line's delay,
    # and each asks for its own look: the line redrawn meanwhile would replay the screen for nothing.
    awaiting = state.status_line.pending and not state.idle_signal
    markers = ALWAYS + (() if state.ready or awaiting else STATUS_LINE)
    markers += ANSWER_MARKERS if state.exec_open else ()
    return markers + (TRUST_ANSWER_MARKERS if state.trust_open else ())


def watch_stream(data: bytes, state: TerminalState) -> ParseResult:
    """Ask for the screen when the stream shows one of the markers the rules read, or, before
    readiness, Codex's idle signal (an escape sequence: read from the bytes, cut or not)."""
    signalled = False
    if not state.ready:
        seen = state.signal_tail + data
        signalled = IDLE_SIGNAL in seen and not state.idle_signal
        state.idle_signal = state.idle_signal or signalled
        state.signal_tail = seen[-len(IDLE_SIGNAL) :]
    return ParseResult(want_screen=state.stream.saw_any(data, _markers(state)) or signalled)


def read_screen(
    source: OutputSource, screen: ScreenSnapshot, state: TerminalState, hooks_file: Path | None = None
) -> ParseResult:
    """`hooks_file`: the agent's hook log, when it has one (not in a replay)."""
    text = screen_text(screen.rows)
    settled, state.settled_look = state.settled_look, False
    events = _trust_dialog(source, text, settled, state)
    call_again = state.trust_settle.start() if _trust_answer_pending(text, state) else None
    exec_events, exec_call_again = _exec_dialog(source, screen.rows, settled, state, hooks_file)
    events += exec_events
    ready_call_again = None
    if READY in text and not (state.ready or state.trust_open or state.exec_open or state.trust_refused):
        events += _ready(source, state)
        ready_call_again = None if state.ready or state.status_line.pending else state.status_line.start()
    return ParseResult(events=events, call_again_after=exec_call_again or call_again or ready_call_again)


def _ready(source: OutputSource, state: TerminalState) -> list[ProviderEvent]:
    """The status line means ready once Codex signalled its session idle: drawn before that, a
    trust question may still come over it (0.169 in a folder it does not trust)."""
    if state.idle_signal:
        rule = "status line"
    elif state.status_line_alone:
        rule = f"status line, no idle signal after {READY_WITHOUT_SIGNAL_SECONDS:g} s"
    else:
        return []
    state.ready = True
    state.status_line.cancel()
    return [event("ready", source, rule, READY)]


def settle_passed(
    source: OutputSource, state: TerminalState, hooks_file: Path | None = None, thread_started: bool = True
) -> ParseResult:
    """A dialog's settle delay passed: report it, or look again where the screen must tell.

    `thread_started`: Codex started its thread (its lock file appeared, or a resume names it).
    It does that only once the folder's trust is settled, so a status line standing alone
    counts only after it: under load the trust question can come more than the delay late."""
    events = []
    look = False
    again = None
    if state.exec_settle.due() and state.exec_open and not state.exec_reported:
        if state.command is None:
            look = True  # drawn, but not its command yet: read it from a newer screen
        else:
            events.append(_exec_requested(source, state, hooks_file))
    if state.trust_settle.due() and state.trust_open:
        look = True
    if state.status_line.due() and not state.ready:
        if thread_started:
            state.status_line_alone = look = True
        else:
            again = state.status_line.start()
    state.settled_look = look
    return ParseResult(events=events, want_screen=look, call_again_after=again)


def _trust_dialog(source: OutputSource, text: str, settled: bool, state: TerminalState) -> list[ProviderEvent]:
    if TRUST in text:
        state.trust_settle.cancel()
        state.status_line.cancel()  # the status line under the question never meant ready
        if state.trust_open:
            return []
        state.trust_open = True
        # Asked as Codex starts, before its prompt: the row of the question says what it means.
        question = next(line.strip() for line in text.splitlines() if TRUST in line)
        message = f"Codex asks as it starts (before its prompt) whether to trust the workspace: {question}"
        return [
            event(
                "approval_requested",
                source,
                "trust dialog",
                TRUST,
                message=message,
                reason="trust",
                dialog=TRUST_DIALOG,
            )
        ]
    if not state.trust_open:
        return []
    if COMMAND_CENTER in text:
        state.trust_open, state.trust_refused = False, True
        state.trust_settle.cancel()
        message = "the workspace was not trusted: Codex shows its Agent command center"
        return [
            event("approval_resolved", source, "trust dialog left", COMMAND_CENTER, message=message, answer="rejected")
        ]
    if READY in text and settled:
        state.trust_open = False
        return [event("approval_resolved", source, TRUST_ANSWERED, READY, answer="accepted")]
    return []


def _trust_answer_pending(text: str, state: TerminalState) -> bool:
    """The dialog is gone for the chat view: whether it stays (trusted) shows only a little later."""
    return state.trust_open and TRUST not in text and READY in text and not state.trust_settle.pending


def _exec_dialog(
    source: OutputSource, rows: list[str], settled: bool, state: TerminalState, hooks_file: Path | None
) -> tuple[list[ProviderEvent], float | None]:
    shown = any(EXEC in row for row in rows)
    if shown:
        state.command = command_on(rows) or state.command
        if not state.exec_open:
            # A new dialog: reported once it has been on screen long enough to take a key.
            state.exec_open, state.exec_reported = True, False
            return [], state.exec_settle.start()
        if settled and not state.exec_reported:
            return [_exec_requested(source, state, hooks_file)], None
        return [], None
    if not state.exec_open:
        return [], None
    # Gone: the chat keeps every earlier answer, so the answer is read now, from the newest line.
    # Said even when it went before it settled here: a host that took the agent on after a
    # restart finds the dialog its predecessor reported, and may type the answer before this
    # parser's settle; where nobody was told it waited, leaving it changes no status.
    state.exec_open, state.exec_reported, state.command = False, False, None
    state.exec_settle.cancel()
    line, answer = newest_answer(rows)
    return [event("approval_resolved", source, "approval dialog answered", line or EXEC, answer=answer)], None


def _exec_requested(source: OutputSource, state: TerminalState, hooks_file: Path | None) -> ProviderEvent:
    """The dialog, settled on screen (it takes keys now), named by the PermissionRequest hook
    that asked for it when there is one, else by the command it shows."""
    state.exec_reported = True
    command = state.command
    request = pending_permission(hooks_file)
    if request is not None:
        tool_input = request.get("tool_input")
        reason = tool_input.get("description") if isinstance(tool_input, dict) else None
        summary = tool_summary(request)
        message = f"Codex asks to run {summary}" + (f" ({reason})" if isinstance(reason, str) and reason else "")
        rule = "approval dialog after hook PermissionRequest"
        return event(
            "approval_requested",
            source,
            rule,
            command or summary,
            message=message,
            data=tool_data(request),
            reason="tool",
            dialog=EXEC_DIALOG,
        )
    message = f"Codex asks to run: {command}" if command else "Codex asks to run a command"
    return event(
        "approval_requested",
        source,
        "approval dialog",
        command or EXEC,
        message=message,
        reason="tool",
        dialog=EXEC_DIALOG,
    )


def command_on(rows: list[str]) -> str | None:
    """The command the dialog asks about: the `$ ` line after its question (wrapped rows joined)."""
    below = next((index for index, row in enumerate(rows) if EXEC in row), None)
    if below is None:
        return None
    for index in range(below + 1, len(rows)):
        row = rows[index].strip()
        if row.startswith("$ "):
            parts = [row[2:].strip()]
            for more in rows[index + 1 :]:
                if not more.strip():
                    break
                parts.append(more.strip())
            return " ".join(parts) or None
    return None


def newest_answer(rows: list[str]) -> tuple[str | None, Literal["accepted", "rejected"] | None]:
    """The lowest answer line on screen (the newest) and what it says."""
    for row in reversed(rows):
        for line, answer in ANSWERS:
            if line in row:
                return row.strip(), answer
    return None, None
