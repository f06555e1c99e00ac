"""Claude Code's TUI (`pty`): the ready prompt, the approval dialog, the first-run screens.

The stream only says when to look: a marker in its squeezed text (the TUI draws spaces
by moving the cursor) asks the host for the screen, and the rules below read the
screen as a person sees it. The hooks are the primary signal; the screen covers what
no hook tells — readiness, first-run screens that would otherwise hang silently, a
rejected approval — and an approval dialog the hooks did not report.
"""

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from wardian_claude.home import hooks_file
from wardian_claude.hooks_log import TOOL_DIALOG, permission_asked_this_turn
from wardian_claude.limits import RETRYING, retrying_on_screen
from wardian_claude.profile import TOOL_QUESTION
from wardian_core.provider import ApprovalReason, OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.home import ready_rule
from wardian_core.provider.parsing import MarkerWatch, ScreenParser, Settle, squeeze

READY = "? for shortcuts"
APPROVAL = TOOL_QUESTION
# A rejected approval (or Esc) interrupts the turn without any hook (2.1.197).
INTERRUPTED = "What should Claude do instead?"
# Drawn under the prompt while a turn runs: a look then shows whether a dialog is gone.
BUSY = "esc to interrupt"
PROMPT_CHAR, RULE_CHAR = "❯", "─"
# Without onboarding state Claude checks api.anthropic.com first and exits when it cannot.
UNREACHABLE = "Unable to connect to Anthropic services"
# What 2.1.330 prints as it exits (code 0) once its trust question was refused ("No, exit");
# 2.1.197 exits (code 1) without a word. Printed after the TUI is gone: read from the stream.
REFUSED = "Claude Code didn't start because this folder isn't trusted."
REFUSED_MARKER = squeeze(REFUSED)
# Claude retrying by itself at a usage limit (an API key's, a reset within about a minute): only
# the screen says so, "Session limit reached · Retrying in 21s (3:24am) · attempt 1/10" (2.1.197),
# "5-hour limit reached · retrying in 45s (3:26am) · attempt 1/10" (2.1.332).
LIMIT_RETRYING_MARKER = squeeze("limit reached")


@dataclass(frozen=True)
class FirstRunScreen:
    marker: str
    reason: ApprovalReason
    dialog: str
    message: str
    # The words of the screen's question, whose row the evidence quotes ("" for none).
    question: str = ""


# Claude asks as it starts, before its prompt takes input ("Quick safety check: Is this a
# project you created or one you trust?" in both tested versions, "is" in 2.1.330).
TRUST_MESSAGE = "workspace trust dialog, as Claude starts (before its prompt)"
TRUST_QUESTION = "one you trust?"
ADD_DIR_MESSAGE = "directory trust: Claude asks whether to trust an added directory"
API_KEY_MESSAGE = "API key confirmation: Claude asks whether to use ANTHROPIC_API_KEY"
# Screens that wait for a person before the prompt is usable. The trust dialog's options
# say which keys answer it: numbered with Yes first (2.1.197) or a menu with "No, exit"
# first (2.1.330); the numbered marker is checked first.
FIRST_RUN_SCREENS = (
    FirstRunScreen("1. Yes, I trust this folder", "trust", "trust", TRUST_MESSAGE, TRUST_QUESTION),
    FirstRunScreen("Yes, I trust this folder", "trust", "trust_menu", TRUST_MESSAGE, TRUST_QUESTION),
    # A resumed session asked to trust an --add-dir root it has not worked in (2.1.330).
    FirstRunScreen("Yes, add it", "trust", "trust_menu", ADD_DIR_MESSAGE),
    FirstRunScreen("Choose the text style", "onboarding", "theme", "first-run onboarding: Claude asks for a theme"),
    FirstRunScreen("Select login method", "sign_in", "login", "sign-in: Claude asks how to log in"),
    FirstRunScreen("Detected a custom API key", "onboarding", "api_key", API_KEY_MESSAGE),
    FirstRunScreen("Do you want to use this API key?", "onboarding", "api_key", API_KEY_MESSAGE),
)
# Markers worth a look at any time, and those only while a look could change something:
# a busy turn redraws its hint with every spinner frame, and a screen look costs a replay.
ALWAYS = (
    *(squeeze(marker) for marker in (APPROVAL, UNREACHABLE, *(s.marker for s in FIRST_RUN_SCREENS))),
    LIMIT_RETRYING_MARKER,
)
# The prompt box's `❯` is the one marker every tested version draws when it takes input
# (2.1.330 shows no `? for shortcuts` in auto mode).
PROMPT_MARKERS = (squeeze(READY), squeeze(BUSY), PROMPT_CHAR)
INTERRUPTED_MARKER = squeeze(INTERRUPTED)
# The PermissionRequest hook reports a dialog with its tool; the screen reports it only if
# it is still there after this delay and no such hook fired in the turn (hooks off or broken:
# nothing else would).
SCREEN_APPROVAL_GRACE_SECONDS = 1.0
# Ready is the prompt on screen once the SessionStart hook has fired; a prompt with no hook
# after this long (hooks disabled by the user's settings) counts on its own.
HOOKLESS_READY_SECONDS = 5.0


def input_box_shown(rows: list[str]) -> bool:
    """The prompt box (a `❯` row right under a rule of `─`): drawn whenever the TUI takes input,
    also after a turn, when the `? for shortcuts` hint is gone (2.1.197)."""
    return any(
        row.lstrip().startswith(PROMPT_CHAR) and above.strip() and set(above.strip()) == {RULE_CHAR}
        for above, row in itertools.pairwise(rows)
    )


class ClaudeScreen(ScreenParser):
    """Readiness, first-run screens, a tool dialog the hooks did not report, a rejected approval."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.unreachable = False
        self.first_run: FirstRunScreen | None = None
        # The tool dialog was on screen at the last look, and since the last prompt.
        self.dialog_shown = False
        self.dialog_seen = False
        self.grace = Settle(SCREEN_APPROVAL_GRACE_SECONDS)
        # The prompt is on screen, the SessionStart hook not yet in the hooks file.
        self.hookless = Settle(HOOKLESS_READY_SECONDS)
        self.hookless_expired = False
        # The last look showed the prompt (or a turn under it).
        self.prompt_on_screen = False
        self.confirming = False
        # The screen reported this dialog already (one report per dialog shown).
        self.dialog_reported = False
        # Watched only while a trust question is open, for the words of a refusal.
        self.refusal = MarkerWatch()
        # The row of the limit retry last reported, up to its attempt ("attempt 1/10"): the countdown
        # redraws it every second, one report per attempt.
        self.retry_reported: str | None = None

    def hook_log_of(self, ctx: SpawnContext) -> Path | None:
        return hooks_file(ctx)

    def markers(self) -> tuple[str, ...]:
        # The prompt on screen at the last look, ready waits on the SessionStart hook or the hookless
        # delay, and each asks for its own look: the prompt redrawn meanwhile would replay for nothing.
        awaiting_prompt = not self.ready and not (self.prompt_on_screen and self.hookless.pending)
        waiting = awaiting_prompt or self.first_run is not None or self.dialog_shown or self.dialog_seen
        return ALWAYS + (PROMPT_MARKERS if waiting else ()) + ((INTERRUPTED_MARKER,) if self.dialog_seen else ())

    def stream_events(self, data: bytes) -> list[ProviderEvent]:
        """Claude's words as it exits, printed after the TUI is gone: read from the stream."""
        if self.first_run is None or self.first_run.reason != "trust":
            return []
        if not self.refusal.saw_any(data, (REFUSED_MARKER,)):
            return []
        self.first_run = None
        message = "the folder was not trusted: Claude exits"
        return [self.event("approval_resolved", "trust refused", REFUSED, message=message, answer="rejected")]

    def read(self, rows: list[str], text: str, settled: bool) -> ParseResult:
        events: list[ProviderEvent] = []
        self.prompt_on_screen = False
        if UNREACHABLE in text and not self.unreachable:
            self.unreachable = True
            message = "Claude Code cannot reach Anthropic's API (first-run connectivity check)"
            events.append(self.event("error", "cannot reach Anthropic", UNREACHABLE, message=message))
        first_run = next((s for s in FIRST_RUN_SCREENS if s.marker in text), None)
        if first_run is not None:
            if self.first_run is None or self.first_run.dialog != first_run.dialog:
                self.first_run = first_run
                events.append(self._first_run_opened(first_run, rows))
            return ParseResult(events=events)
        # A turn running under the prompt (busy) shows the TUI took input as surely as the hint.
        call_again_after = None
        if READY in text or BUSY in text or input_box_shown(rows):
            marker = READY if READY in text else BUSY if BUSY in text else PROMPT_CHAR
            self.prompt_on_screen = True
            events += self._prompt_shown(marker)
            if not self.ready:
                events += self._ready(marker)
                call_again_after = None if self.ready or self.hookless.pending else self.hookless.start()
        events += self._tool_dialog(text)
        events += self._limit_retrying(rows)
        return ParseResult(events=events, call_again_after=call_again_after or self._grace(text))

    def _limit_retrying(self, rows: list[str]) -> list[ProviderEvent]:
        row = next((row for row in rows if RETRYING.search(row)), None)
        attempt = row[row.lower().find("attempt") :] if row and "attempt" in row.lower() else row
        if row is None or attempt == self.retry_reported:
            self.retry_reported = attempt  # gone from the screen: the next retry is a new one
            return []
        self.retry_reported = attempt
        retrying = retrying_on_screen(self.source, row, datetime.now(UTC))
        return [retrying] if retrying is not None else []

    def _first_run_opened(self, screen: FirstRunScreen, rows: list[str]) -> ProviderEvent:
        asked = next((row.strip() for row in rows if screen.question and screen.question in row), None)
        return self.event(
            "approval_requested",
            "first-run screen",
            screen.marker,
            message=f"{screen.message}: {asked}" if asked else screen.message,
            reason=screen.reason,
            dialog=screen.dialog,
        )

    def _prompt_shown(self, marker: str) -> list[ProviderEvent]:
        events = []
        if self.first_run is not None:
            # A person (or `send --approval`) got past the first-run screen.
            rule = f"ready prompt after the {self.first_run.dialog} screen"
            events.append(self.event("approval_resolved", rule, marker, answer="accepted"))
            self.first_run = None
        return events

    def _ready(self, marker: str) -> list[ProviderEvent]:
        """Ready once the prompt shows and Claude has started its session (its SessionStart hook):
        the hook alone can fire under a first-run screen, the prompt alone before the session is up."""
        rule = ready_rule(self.hook_log(), self.hookless_expired, HOOKLESS_READY_SECONDS)
        if rule is None:
            return []
        self.hookless.cancel()
        return [self.became_ready(rule, marker)]

    def _tool_dialog(self, text: str) -> list[ProviderEvent]:
        shown = APPROVAL in text
        events = []
        if self.confirming and shown:
            # Still there after the grace delay: told once. By the screen only where no hook told
            # of a dialog in this turn (hooks off or broken); where one did, the dialog is the
            # hooks' to tell: Claude runs an accepted tool (its PostToolUse hook fired) before it
            # repaints the dialog away, and a report then would open it again.
            self.dialog_reported = True
            if not permission_asked_this_turn(self.hook_log()):
                events.append(self._dialog_on_screen())
        self.confirming = False
        if self.dialog_seen and not shown and BUSY in text:
            self.dialog_seen = False  # the turn went on: the dialog was accepted (the hooks say so)
        if self.dialog_seen and not shown and INTERRUPTED in text:
            # No hook says so: the rejected tool interrupted the turn (2.1.197).
            self.dialog_seen = False
            rule = "turn interrupted after an approval dialog"
            events.append(self.event("approval_resolved", rule, INTERRUPTED, answer="rejected"))
            events.append(self.event("turn_completed", rule, INTERRUPTED, message="the tool was not approved"))
        if shown and not self.dialog_shown:
            self.dialog_seen = True
        if not shown:
            self.grace.cancel()
            self.dialog_reported = False
        self.dialog_shown = shown
        return events

    def _dialog_on_screen(self) -> ProviderEvent:
        message = "Claude asks before running a tool"
        return self.event(
            "approval_requested", "approval dialog", APPROVAL, message=message, reason="tool", dialog=TOOL_DIALOG
        )

    def _grace(self, text: str) -> float | None:
        if APPROVAL in text and not (self.grace.pending or self.confirming or self.dialog_reported):
            return self.grace.start()
        return None

    def quiet(self) -> ParseResult:
        """After a settle delay: look again, to report a dialog that is still there or a prompt
        whose SessionStart hook never came."""
        if self.hookless.due() and not self.ready:
            self.hookless_expired = True
            return ParseResult(want_screen=True)
        if self.grace.due() and self.dialog_shown:
            self.confirming = True
            return ParseResult(want_screen=True)
        return ParseResult()
