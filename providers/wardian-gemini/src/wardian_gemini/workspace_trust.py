"""Gemini CLI's question about its workspace folder (0.61.0), read from the screen.

On a folder the trust file has no rule for (trust.py), Gemini draws its prompt, then replaces it
with "Do you trust the files in this folder?" — `1. Trust folder (<name>)`, `2. Trust parent
folder (<parent>)`, `3. Don't trust` — before any hook fires. A trust answer restarts Gemini in
the same terminal ("Gemini CLI is restarting to apply the trust changes...", then a fresh start
drawn below the old box, which stays on screen); "Don't trust" closes the box and Gemini runs
on with the folder untrusted, no restart. Both answers are written to the trust file.

Under load Gemini can draw its prompt between closing the box and the restart message, so a
closed box is a refusal at once only when the trust file records one (the answer Gemini wrote,
trust.workspace_decision); otherwise the restart message is awaited a while, and the file
decides when it does not come.

The question is reported only once the Gemini that asks finished starting: its SessionStart
fired (or, with the user's hooks off, the prompt would count without it). Gemini 0.61.0 can
draw the box before its start-up is done (under load, over a second before), and an answer
written then is lost: the box's effect runs again as start-up ends, reads the new trust rule,
closes the box and with it the timer of the restart — Gemini says it is restarting and runs
on, untrusted, for good. A question seen but not reported yet holds ready like an open one; a
person who answers it in an attached terminal meanwhile is read the same way, with no event.

Wardian's hooks (an extension's) usually fire before the question, so the prompt drawn a moment
before it would look ready: on a folder the trust file does not decide, ready waits for the
question to be answered, or for the prompt to stand a while with no question. After a trust
answer the old start's prompt comes back while Gemini restarts (its SessionEnd hooks run
under it), and between the two starts the terminal is back in cooked mode: what is typed then
is echoed and lost. So ready waits for the new start's SessionStart, which Gemini fires with
its input already in raw mode.

The restart is a new process: the answering one exits 199 and Gemini's relaunching parent
starts another. Its SessionStart is told from the old one's by the process that fired it
(`new_start_began`), not by the log's order or count: the old start can fire SessionStart
before or after the question, before or after the restart message, with or without its
SessionEnds (none at all when the answer came before its hooks were set up), and a look can
read the restart message after the new start's SessionStart is already in the log.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from wardian_core.provider import OutputSource, ProviderEvent, parsing
from wardian_core.provider.home import SessionRecord
from wardian_core.provider.parsing import Settle, event, squeeze
from wardian_gemini.profile import WORKSPACE_TRUST_DIALOG as DIALOG

QUESTION = "Do you trust the files in this folder?"
# The box is drawn top down: reported once its last option is on screen, with all of them.
LAST_OPTION = "3. Don't trust"
RESTARTING = "Gemini CLI is restarting to apply the trust changes..."
MARKERS = (squeeze(LAST_OPTION), squeeze(RESTARTING))
# An option line of the box, the selected one behind a bullet: "● 1. Trust folder (proj)".
OPTION = re.compile(r"^(?:● )?(\d\. .+)$")
MESSAGE = "Gemini asks whether to trust the files in its workspace folder"
ACCEPTED_RULE = "workspace trust dialog answered: Gemini restarts trusting the folder"
REJECTED_RULE = "workspace trust dialog closed without a restart: the folder stays untrusted"
ACCEPTED_FILE_RULE = "workspace trust dialog closed, the trust file trusting the folder: Gemini restarts"
# The question replaces the prompt within a few hundred ms of its first frame (0.61.0).
QUESTION_SETTLE_SECONDS = 2.0
# How long a closed box the trust file does not refuse waits for the restart message.
CLOSE_SETTLE_SECONDS = 5.0
DO_NOT_TRUST = "DO_NOT_TRUST"


def _undecided() -> str | None:
    return None


@dataclass
class WorkspaceTrust:
    """The question of one launch: asked, answered, and what ready waits for meanwhile."""

    # On screen (`shown`), and reported (`open`): reported once the asking Gemini finished starting.
    shown: bool = False
    open: bool = False
    # Asked once per launch: after a trust answer the old box stays on screen above the restart.
    answered: bool = False
    # No rule decides the workspace (trust.question_expected); None until looked up.
    expected: bool | None = None
    settle: Settle = field(default_factory=lambda: Settle(QUESTION_SETTLE_SECONDS))
    settled: bool = False
    # When the question was first seen (process_start.process_clock): the Gemini that asked
    # started before it; the one a trust answer restarts it as, after it.
    asked_at: float | None = None
    # A trust answer began Gemini's restart: the prompt is ready once the new start's SessionStart
    # fired (new_start_began).
    restarted: bool = False
    clock: Callable[[], float] = parsing.process_clock
    started_after: Callable[[int, float], bool | None] = parsing.started_after
    # The trust file's decision for the workspace: TRUST_FOLDER, DO_NOT_TRUST or None (no rule yet,
    # or a replay of bytes with no file to read).
    decision: Callable[[], str | None] = _undecided
    closing: Settle = field(default_factory=lambda: Settle(CLOSE_SETTLE_SECONDS))
    close_settled: bool = False

    def ready_wait(self) -> tuple[bool, float | None]:
        """Whether the prompt on screen must wait for the question; the delay to look again after."""
        if not self.expected or self.answered or self.settled:
            return False, None
        return True, None if self.settle.pending else self.settle.start()

    @property
    def held(self) -> bool:
        """The question is on screen, not reported yet: the asking Gemini has not finished starting."""
        return self.shown and not self.open

    def _starts_after_the_question(self, records: list[SessionRecord]) -> list[bool | None]:
        """Per SessionStart in `records`: whether a live process started after the question was
        seen fired it; None where that cannot be told (no pid, no access, no question seen)."""
        asked_at = self.asked_at
        starts = [record.cli_pid for record in records if record.event == "SessionStart"]
        return [self.started_after(pid, asked_at) if pid and asked_at is not None else None for pid in starts]

    def asker_started(self, records: list[SessionRecord]) -> bool:
        """The Gemini that asks fired SessionStart: a start not told to be by a process started
        after the question was seen (a restart a person's answer began, before the question was
        reported, is not the asker's)."""
        return any(told is not True for told in self._starts_after_the_question(records))

    def new_start_began(self, records: list[SessionRecord] | None) -> bool:
        """No restart, or the restarted Gemini fired SessionStart: one fired by a live process that
        started after the question was seen. `records`: the hook log's; None with no log (a replay)
        and none at all (the user's hooks off) wait for nothing: the prompt decides, as at launch."""
        told = self._starts_after_the_question(records or [])
        if not self.restarted or not told or any(told):
            return True
        if None not in told:
            return False
        # A start whose process cannot be told (no pid in its record, no access to the process): the
        # log's order decides, a SessionStart after the old start's SessionEnd. Blind to an old start
        # that fired no SessionEnd, so only a fallback.
        events = [record.event for record in records or []]
        return events[-1] == "SessionStart" and "SessionEnd" in events

    def look(
        self, source: OutputSource, lines: list[str], text: str, prompt: str | None, started: Callable[[], bool]
    ) -> tuple[list[ProviderEvent], float | None]:
        """`lines`: the screen's rows without box borders; `prompt`: the input prompt's text when on
        screen; `started`: whether the asking Gemini finished starting (asked only while the
        question waits for it). The events, and the delay after which to look again (a closed box
        not yet decided)."""
        if self.answered:
            return [], None
        if RESTARTING in text:
            self.answered, self.restarted, was_open = True, True, self.open
            self.shown = self.open = False
            self.closing.cancel()
            answered = [event("approval_resolved", source, ACCEPTED_RULE, RESTARTING, answer="accepted")]
            return answered if was_open else [], None
        if QUESTION in text and LAST_OPTION in text:
            if not self.shown:
                self.shown, self.asked_at = True, self.clock()
                self.settle.cancel()
            if self.open or not started():
                return [], None
            self.open = True
            message = f"{MESSAGE} ({' / '.join(_options(lines))})"
            rule = "workspace trust dialog"
            asked = event("approval_requested", source, rule, QUESTION, message=message, reason="trust", dialog=DIALOG)
            return [asked], None
        if self.shown and prompt and QUESTION not in text:
            return self._closed(source, prompt)
        return [], None

    def _closed(self, source: OutputSource, prompt: str) -> tuple[list[ProviderEvent], float | None]:
        """The box is gone and the prompt drawn: a refusal the trust file records is read at once;
        otherwise the restart message is awaited (the prompt before it is not the restarted
        Gemini's) for CLOSE_SETTLE_SECONDS, then the file decides, a refusal when it says nothing.
        A question never reported closes with no event."""
        decided = self.decision()
        if decided != DO_NOT_TRUST and not self.close_settled:
            return [], None if self.closing.pending else self.closing.start()
        told = self.open
        self.answered, self.shown, self.open = True, False, False
        self.closing.cancel()
        if not told:
            return [], None
        if decided is not None and decided != DO_NOT_TRUST:
            return [event("approval_resolved", source, ACCEPTED_FILE_RULE, prompt, answer="accepted")], None
        return [event("approval_resolved", source, REJECTED_RULE, prompt, answer="rejected")], None


def _options(lines: list[str]) -> list[str]:
    """The box's option lines (below its question: the tips above are numbered too)."""
    below = lines[next((i for i, line in enumerate(lines) if line.startswith(QUESTION)), 0) :]
    return [match[1] for match in map(OPTION.match, below) if match]
