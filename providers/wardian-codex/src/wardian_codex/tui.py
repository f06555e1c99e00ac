"""Codex's TUI (`pty`): the ready status line, the trust dialog, the command approval dialog.

The stream only says when to look: a marker in its squeezed text (the TUI draws spaces by
moving the cursor) asks the host for the screen, and the rules below read the screen as a
person sees it (Codex 0.169.0). Turns, command output and errors come from the rollout and
the hooks; a command dialog is reported from the screen (where it takes keys), named by the
PermissionRequest hook that asked for it.
"""

from pathlib import Path
from typing import Literal

from wardian_codex.hooks import hooks_file
from wardian_codex.hooks_log import pending_permission
from wardian_codex.profile import (
    APPROVAL_SETTLE_SECONDS,
    EXEC_DIALOG,
    READY_WITHOUT_SIGNAL_SECONDS,
    TRUST_DIALOG,
    TRUST_SETTLE_SECONDS,
)
from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.parsing import ScreenParser, Settle, squeeze, tool_data, tool_summary

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


class CodexScreen(ScreenParser):
    """Readiness, the trust dialog, the command approval dialog, read from the screen."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        # The trust dialog was reported and is not answered yet.
        self.trust_open = False
        self.trust_settle = Settle(TRUST_SETTLE_SECONDS)
        # The command dialog was on the last screen; reported once it settled.
        self.exec_open = False
        self.exec_reported = False
        self.exec_settle = Settle(APPROVAL_SETTLE_SECONDS)
        self.command: str | None = None
        # Codex signalled its session idle (IDLE_SIGNAL), or its status line stood long enough alone.
        self.idle_signal = False
        self.signal_tail = b""
        self.status_line = Settle(READY_WITHOUT_SIGNAL_SECONDS)
        self.status_line_alone = False
        # The trust question was refused: Codex shows its command center, never the workspace's prompt.
        self.trust_refused = False

    def hook_log_of(self, ctx: SpawnContext) -> Path | None:
        return hooks_file(ctx)

    def markers(self) -> tuple[str, ...]:
        # A status line seen before the idle signal, ready waits on the signal or the line's delay,
        # and each asks for its own look: the line redrawn meanwhile would replay the screen for nothing.
        awaiting = self.status_line.pending and not self.idle_signal
        markers = ALWAYS + (() if self.ready or awaiting else STATUS_LINE)
        markers += ANSWER_MARKERS if self.exec_open else ()
        return markers + (TRUST_ANSWER_MARKERS if self.trust_open else ())

    def signalled(self, data: bytes) -> bool:
        """Before readiness, Codex's idle signal asks for a look (an escape sequence: read from the
        bytes, cut or not)."""
        if self.ready:
            return False
        seen = self.signal_tail + data
        signalled = IDLE_SIGNAL in seen and not self.idle_signal
        self.idle_signal = self.idle_signal or signalled
        self.signal_tail = seen[-len(IDLE_SIGNAL) :]
        return signalled

    def read(self, rows: list[str], text: str, settled: bool) -> ParseResult:
        events = self._trust_dialog(text, settled)
        call_again = self.trust_settle.start() if self._trust_answer_pending(text) else None
        exec_events, exec_call_again = self._exec_dialog(rows, settled)
        events += exec_events
        ready_call_again = None
        if READY in text and not (self.ready or self.trust_open or self.exec_open or self.trust_refused):
            events += self._ready()
            ready_call_again = None if self.ready or self.status_line.pending else self.status_line.start()
        return ParseResult(events=events, call_again_after=exec_call_again or call_again or ready_call_again)

    def _ready(self) -> list[ProviderEvent]:
        """The status line means ready once Codex signalled its session idle: drawn before that, a
        trust question may still come over it (0.169 in a folder it does not trust)."""
        if self.idle_signal:
            rule = "status line"
        elif self.status_line_alone:
            rule = f"status line, no idle signal after {READY_WITHOUT_SIGNAL_SECONDS:g} s"
        else:
            return []
        self.status_line.cancel()
        return [self.became_ready(rule, READY)]

    def quiet(self) -> ParseResult:
        """A dialog's settle delay passed: report it, or look again where the screen must tell.

        A status line standing alone counts only once Codex started its thread (its lock file
        appeared, or a resume names it; a replay has no launch to ask and takes it as started).
        It does that only once the folder's trust is settled: under load the trust question can
        come more than the delay late."""
        thread_started = self._thread_started()
        events = []
        look = False
        again = None
        if self.exec_settle.due() and self.exec_open and not self.exec_reported:
            if self.command is None:
                look = True  # drawn, but not its command yet: read it from a newer screen
            else:
                events.append(self._exec_requested())
        if self.trust_settle.due() and self.trust_open:
            look = True
        if self.status_line.due() and not self.ready:
            if thread_started:
                self.status_line_alone = look = True
            else:
                again = self.status_line.start()
        self.settled_look = look
        return ParseResult(events=events, want_screen=look, call_again_after=again)

    def _trust_dialog(self, text: str, settled: bool) -> list[ProviderEvent]:
        if TRUST in text:
            self.trust_settle.cancel()
            self.status_line.cancel()  # the status line under the question never meant ready
            if self.trust_open:
                return []
            self.trust_open = True
            # Asked as Codex starts, before its prompt: the row of the question says what it means.
            question = next(line.strip() for line in text.splitlines() if TRUST in line)
            message = f"Codex asks as it starts (before its prompt) whether to trust the workspace: {question}"
            return [
                self.event(
                    "approval_requested",
                    "trust dialog",
                    TRUST,
                    message=message,
                    reason="trust",
                    dialog=TRUST_DIALOG,
                )
            ]
        if not self.trust_open:
            return []
        if COMMAND_CENTER in text:
            self.trust_open, self.trust_refused = False, True
            self.trust_settle.cancel()
            message = "the workspace was not trusted: Codex shows its Agent command center"
            return [
                self.event("approval_resolved", "trust dialog left", COMMAND_CENTER, message=message, answer="rejected")
            ]
        # The chat view also flashes before a refusal's command center, for longer under load:
        # only a trusted folder gets a thread (its lock file), so a trust waits for it.
        if READY in text and settled and self._thread_started():
            self.trust_open = False
            return [self.event("approval_resolved", TRUST_ANSWERED, READY, answer="accepted")]
        return []

    def _thread_started(self) -> bool:
        """Codex started its thread: its lock file appeared, or a resume names it (a replay has
        no launch to ask and takes it as started). It does so only in a folder it trusts."""
        return self.ctx is None or self.known_session is not None

    def _trust_answer_pending(self, text: str) -> bool:
        """The dialog is gone for the chat view: whether it stays (trusted) shows only a little
        later, and is looked at again every settle delay until Codex's thread or its command
        center tells."""
        return self.trust_open and TRUST not in text and READY in text and not self.trust_settle.pending

    def _exec_dialog(self, rows: list[str], settled: bool) -> tuple[list[ProviderEvent], float | None]:
        shown = any(EXEC in row for row in rows)
        if shown:
            self.command = command_on(rows) or self.command
            if not self.exec_open:
                # A new dialog: reported once it has been on screen long enough to take a key.
                self.exec_open, self.exec_reported = True, False
                return [], self.exec_settle.start()
            if settled and not self.exec_reported:
                return [self._exec_requested()], None
            return [], None
        if not self.exec_open:
            return [], None
        # Gone: the chat keeps every earlier answer, so the answer is read now, from the newest line.
        # Said even when it went before it settled here: a host that took the agent on after a
        # restart finds the dialog its predecessor reported, and may type the answer before this
        # parser's settle; where nobody was told it waited, leaving it changes no status.
        self.exec_open, self.exec_reported, self.command = False, False, None
        self.exec_settle.cancel()
        line, answer = newest_answer(rows)
        return [self.event("approval_resolved", "approval dialog answered", line or EXEC, answer=answer)], None

    def _exec_requested(self) -> ProviderEvent:
        """The dialog, settled on screen (it takes keys now), named by the PermissionRequest hook
        that asked for it when there is one, else by the command it shows."""
        self.exec_reported = True
        command = self.command
        request = pending_permission(self.hook_log())
        if request is not None:
            tool_input = request.get("tool_input")
            reason = tool_input.get("description") if isinstance(tool_input, dict) else None
            summary = tool_summary(request)
            message = f"Codex asks to run {summary}" + (f" ({reason})" if isinstance(reason, str) and reason else "")
            rule = "approval dialog after hook PermissionRequest"
            return self.event(
                "approval_requested",
                rule,
                command or summary,
                message=message,
                data=tool_data(request),
                reason="tool",
                dialog=EXEC_DIALOG,
            )
        message = f"Codex asks to run: {command}" if command else "Codex asks to run a command"
        return self.event(
            "approval_requested",
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
