"""Claude Code's TUI (`pty`): the ready prompt, the approval dialog, the first-run screens.

The stream only says when to look: a marker in its squeezed text (the TUI draws spaces
by moving the cursor) asks the host for the screen, and the rules below read the
screen as a person sees it. The hooks are the primary signal; the screen covers what
no hook tells — readiness, first-run screens that would otherwise hang silently, a
rejected approval — and an approval dialog the hooks did not report.
"""

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from wardian_claude.hooks_log import TOOL_DIALOG
from wardian_claude.limits import RETRYING, retrying_on_screen
from wardian_core.provider import ApprovalReason, OutputSource, ParseResult, ProviderEvent
from wardian_core.provider.home import ready_rule
from wardian_core.provider.parsing import MarkerWatch, ScreenSnapshot, Settle, event, screen_text, squeeze

READY = "? for shortcuts"
APPROVAL = "Do you want to proceed?"
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
# it is still there after this delay (hooks off or broken: nothing else would).
SCREEN_APPROVAL_GRACE_SECONDS = 1.0
# Ready is the prompt on screen once the SessionStart hook has fired; a prompt with no hook
# after this long (hooks disabled by the user's settings) counts on its own.
HOOKLESS_READY_SECONDS = 5.0


@dataclass
class TerminalState:
    stream: MarkerWatch = field(default_factory=MarkerWatch)
    ready: bool = False
    unreachable: bool = False
    first_run: FirstRunScreen | None = None
    # The tool dialog was on screen at the last look, and since the last prompt.
    dialog_shown: bool = False
    dialog_seen: bool = False
    grace: Settle = field(default_factory=lambda: Settle(SCREEN_APPROVAL_GRACE_SECONDS))
    # The prompt is on screen, the SessionStart hook not yet in the hooks file.
    hookless: Settle = field(default_factory=lambda: Settle(HOOKLESS_READY_SECONDS))
    hookless_expired: bool = False
    # The last look showed the prompt (or a turn under it).
    prompt_on_screen: bool = False
    confirming: bool = False
    # The screen reported this dialog already (one report per dialog shown).
    dialog_reported: bool = False
    # Watched only while a trust question is open, for the words of a refusal.
    refusal: MarkerWatch = field(default_factory=MarkerWatch)
    # The row of the limit retry last reported, up to its attempt ("attempt 1/10"): the countdown
    # redraws it every second, one report per attempt.
    retry_reported: str | None = None


def _triggers(state: TerminalState) -> tuple[str, ...]:
    # The prompt on screen at the last look, ready waits on the SessionStart hook or the hookless
    # delay, and each asks for its own look: the prompt redrawn meanwhile would replay for nothing.
    awaiting_prompt = not state.ready and not (state.prompt_on_screen and state.hookless.pending)
    waiting = awaiting_prompt or state.first_run is not None or state.dialog_shown or state.dialog_seen
    return ALWAYS + (PROMPT_MARKERS if waiting else ()) + ((INTERRUPTED_MARKER,) if state.dialog_seen else ())


def watch_stream(source: OutputSource, data: bytes, state: TerminalState) -> ParseResult:
    """Ask for the screen when the stream shows one of the markers the rules read."""
    want_screen = state.stream.saw_any(data, _triggers(state))
    return ParseResult(events=_refused(source, data, state), want_screen=want_screen)


def _refused(source: OutputSource, data: bytes, state: TerminalState) -> list[ProviderEvent]:
    if state.first_run is None or state.first_run.reason != "trust":
        return []
    if not state.refusal.saw_any(data, (REFUSED_MARKER,)):
        return []
    state.first_run = None
    message = "the folder was not trusted: Claude exits"
    return [event("approval_resolved", source, "trust refused", REFUSED, message=message, answer="rejected")]


def input_box_shown(rows: list[str]) -> bool:
    """The prompt box (a `❯` row right under a rule of `─`): drawn whenever the TUI takes input,
    also after a turn, when the `? for shortcuts` hint is gone (2.1.197)."""
    return any(
        row.lstrip().startswith(PROMPT_CHAR) and above.strip() and set(above.strip()) == {RULE_CHAR}
        for above, row in itertools.pairwise(rows)
    )


def read_screen(
    source: OutputSource, screen: ScreenSnapshot, state: TerminalState, hooks_file: Path | None
) -> ParseResult:
    """`hooks_file`: where the agent's hooks write (None for a headless run)."""
    text = screen_text(screen.rows)
    events: list[ProviderEvent] = []
    state.prompt_on_screen = False
    if UNREACHABLE in text and not state.unreachable:
        state.unreachable = True
        message = "Claude Code cannot reach Anthropic's API (first-run connectivity check)"
        events.append(event("error", source, "cannot reach Anthropic", UNREACHABLE, message=message))
    first_run = next((s for s in FIRST_RUN_SCREENS if s.marker in text), None)
    if first_run is not None:
        if state.first_run is None or state.first_run.dialog != first_run.dialog:
            state.first_run = first_run
            events.append(_first_run_opened(source, first_run, screen.rows))
        return ParseResult(events=events)
    # A turn running under the prompt (busy) shows the TUI took input as surely as the hint.
    call_again_after = None
    if READY in text or BUSY in text or input_box_shown(screen.rows):
        marker = READY if READY in text else BUSY if BUSY in text else PROMPT_CHAR
        state.prompt_on_screen = True
        events += _prompt_shown(source, state, marker)
        if not state.ready:
            events += _ready(source, state, marker, hooks_file)
            call_again_after = None if state.ready or state.hookless.pending else state.hookless.start()
    events += _tool_dialog(source, text, state)
    events += _limit_retrying(source, screen.rows, state)
    return ParseResult(events=events, call_again_after=call_again_after or _grace(text, state))


def _limit_retrying(source: OutputSource, rows: list[str], state: TerminalState) -> list[ProviderEvent]:
    row = next((row for row in rows if RETRYING.search(row)), None)
    attempt = row[row.lower().find("attempt") :] if row and "attempt" in row.lower() else row
    if row is None or attempt == state.retry_reported:
        state.retry_reported = attempt  # gone from the screen: the next retry is a new one
        return []
    state.retry_reported = attempt
    retrying = retrying_on_screen(source, row, datetime.now(UTC))
    return [retrying] if retrying is not None else []


def _first_run_opened(source: OutputSource, screen: FirstRunScreen, rows: list[str]) -> ProviderEvent:
    asked = next((row.strip() for row in rows if screen.question and screen.question in row), None)
    return event(
        "approval_requested",
        source,
        "first-run screen",
        screen.marker,
        message=f"{screen.message}: {asked}" if asked else screen.message,
        reason=screen.reason,
        dialog=screen.dialog,
    )


def _prompt_shown(source: OutputSource, state: TerminalState, marker: str) -> list[ProviderEvent]:
    events = []
    if state.first_run is not None:
        # A person (or `send --approval`) got past the first-run screen.
        rule = f"ready prompt after the {state.first_run.dialog} screen"
        events.append(event("approval_resolved", source, rule, marker, answer="accepted"))
        state.first_run = None
    return events


def _ready(source: OutputSource, state: TerminalState, marker: str, hooks_file: Path | None) -> list[ProviderEvent]:
    """Ready once the prompt shows and Claude has started its session (its SessionStart hook):
    the hook alone can fire under a first-run screen, the prompt alone before the session is up."""
    rule = ready_rule(hooks_file, state.hookless_expired, HOOKLESS_READY_SECONDS)
    if rule is None:
        return []
    state.ready = True
    state.hookless.cancel()
    return [event("ready", source, rule, marker)]


def _tool_dialog(source: OutputSource, text: str, state: TerminalState) -> list[ProviderEvent]:
    shown = APPROVAL in text
    events = []
    if state.confirming and shown:
        # Still there after the grace delay: report it, hooks or not.
        state.dialog_reported = True
        message = "Claude asks before running a tool"
        events.append(
            event(
                "approval_requested",
                source,
                "approval dialog",
                APPROVAL,
                message=message,
                reason="tool",
                dialog=TOOL_DIALOG,
            )
        )
    state.confirming = False
    if state.dialog_seen and not shown and BUSY in text:
        state.dialog_seen = False  # the turn went on: the dialog was accepted (the hooks say so)
    if state.dialog_seen and not shown and INTERRUPTED in text:
        # No hook says so: the rejected tool interrupted the turn (2.1.197).
        state.dialog_seen = False
        rule = "turn interrupted after an approval dialog"
        events.append(event("approval_resolved", source, rule, INTERRUPTED, answer="rejected"))
        events.append(event("turn_completed", source, rule, INTERRUPTED, message="the tool was not approved"))
    if shown and not state.dialog_shown:
        state.dialog_seen = True
    if not shown:
        state.grace.cancel()
        state.dialog_reported = False
    state.dialog_shown = shown
    return events


def _grace(text: str, state: TerminalState) -> float | None:
    if APPROVAL in text and not (state.grace.pending or state.confirming or state.dialog_reported):
        return state.grace.start()
    return None


def grace_passed(state: TerminalState) -> ParseResult:
    """After a settle delay: look again, to report a dialog that is still there or a prompt
    whose SessionStart hook never came."""
    if state.hookless.due() and not state.ready:
        state.hookless_expired = True
        return ParseResult(want_screen=True)
    if state.grace.due() and state.dialog_shown:
        state.confirming = True
        return ParseResult(want_screen=True)
    return ParseResult()
