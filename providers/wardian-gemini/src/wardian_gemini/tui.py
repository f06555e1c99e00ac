"""Gemini CLI's TUI (`pty`): the ready prompt, the folder-trust dialogs, the tool box, the
usage-limit dialog and a cancelled turn's line (0.61.0), read by `GeminiScreen`, a kit
`ScreenParser` owning its state.

The stream only says when to look (a marker in its squeezed text); the rules read the screen
as a person sees it. Turns and tools come from the hooks (hooks_log.py); the screen decides
readiness (with the SessionStart hook, and on a resume once its history loaded), shows the
folder-trust dialogs — the workspace's own question (workspace_trust.py) and the one of
`--include-directories`; no hook tells of either —, ends a turn cancelled with Esc (cancel.py;
no hook tells that either) and is the fallback for the tool box.
"""

import os
import re
from pathlib import Path

from wardian_core.provider import OutputSource, ParseResult, ProviderEvent, SpawnContext
from wardian_core.provider.home import ready_rule, session_records
from wardian_core.provider.parsing import BoxReport, ScreenParser, Settle, SettledBox, squeeze
from wardian_gemini import cancel, home, limits, trust, workspace_trust
from wardian_gemini.profile import TOOL_BOX, TOOL_DIALOG, TRUST_DIALOG

READY = "Type your message or @path/to/file"
APPROVAL = TOOL_BOX
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


class GeminiScreen(ScreenParser):
    """Readiness, the folder-trust dialogs, the tool box and the usage-limit dialog, read from the
    screen; with no context (a replay), or headless, there is no hook log and the screen alone decides."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.box = SettledBox(APPROVAL_SETTLE_SECONDS)
        # The folder-trust dialog was reported and its answer is not read yet.
        self.trust_open = False
        self.trust_settle = Settle(TRUST_SETTLE_SECONDS)
        self.workspace = workspace_trust.WorkspaceTrust()
        self.hookless = Settle(HOOKLESS_READY_SECONDS)
        self.hookless_expired = False
        # A resumed launch is ready only once its history loaded (RESUMING).
        self.resume_banner_seen = False
        self.resume_settle = Settle(RESUME_SETTLE_SECONDS)
        self.resume_settled = False
        self.limit = limits.LimitDialog()
        self.cancelled = cancel.CancelledLine()

    @property
    def resumed(self) -> bool:
        """The launch resumes a session (`--resume`)."""
        return self.ctx is not None and self.ctx.session_mode == "resume"

    def hook_log_of(self, ctx: SpawnContext) -> Path | None:
        return home.hooks_file(ctx)

    def markers(self) -> tuple[str, ...]:
        dialog_open = self.box.shown or self.trust_open or self.workspace.shown
        markers = BOX_MARKERS + (READY_MARKERS if dialog_open or not self.ready else ())
        markers += (squeeze(NOT_ADDED),) if self.trust_open else ()
        markers += () if self.workspace.answered else workspace_trust.MARKERS
        # The usage-limit dialog (limits.py); once told, the prompt's return lets the next one be told.
        markers += cancel.MARKERS
        return markers + limits.MARKERS + (READY_MARKERS if self.limit.shown else ())

    def read(self, rows: list[str], text: str, settled: bool) -> ParseResult:
        hooks_file = self.hook_log()
        self._expect_workspace_question(hooks_file)
        lines = _box_lines(rows)
        prompt = READY if READY in text else None
        events, close_again = self.workspace.look(self.source, lines, text, prompt, lambda: self._started(hooks_file))
        if self.workspace.held:
            # Reported once Gemini's SessionStart fired, or after the wait a hookless prompt gets.
            close_again = close_again or (None if self.hookless.pending else self.hookless.start())
        elif self.workspace.open:
            # The prompt drawn before the question must not count as ready without its hook later.
            self.hookless.cancel()
            self.hookless_expired = False
        trust_events, trust_again = self._trust_dialog(text, lines, settled)
        events += trust_events
        box_events, call_again = self.box.events(self.source, APPROVAL in text, settled, APPROVAL_BOX)
        events += box_events
        events += self.limit.look(self.source, lines)
        events += self.cancelled.look(self.source, lines, hooks_file)
        if self.resumed and not self.ready and any(RESUMING_ROW.match(row.strip()) for row in rows):
            self.resume_banner_seen = True
            self.resume_settle.cancel()
        elif READY in text and APPROVAL not in text and not (self.ready or self.trust_open or self.workspace.shown):
            ready_events, look_again = self._ready(hooks_file)
            events += ready_events
            call_again = min(filter(None, [call_again, look_again]), default=None)
        return ParseResult(events=events, call_again_after=call_again or trust_again or close_again)

    def _expect_workspace_question(self, hooks_file: Path | None) -> None:
        """Whether the workspace's question may come: looked up once, at the first look (an answer
        rewrites the trust file later in the launch); a replay of recorded bytes has no hook log
        and the screen alone decides."""
        if self.workspace.expected is not None:
            return
        self.workspace.expected = (
            self.ctx is not None
            and hooks_file is not None
            and hooks_file.exists()
            and trust.question_expected(home.user_gemini_dir(), os.environ, self.ctx.workspace)
        )
        if self.workspace.expected:
            self.workspace.decision = self._workspace_decision

    def _started(self, hooks_file: Path | None) -> bool:
        """Gemini finished starting, as far as the workspace's question needs: its SessionStart
        fired, or no log tells (a replay), or a prompt would count without it by now."""
        records = session_records(hooks_file)
        return records is None or self.hookless_expired or self.workspace.asker_started(records)

    def _workspace_decision(self) -> str | None:
        """The trust file's decision now (Gemini writes the answer when its box closes)."""
        if self.ctx is None:
            return None
        return trust.workspace_decision(home.user_gemini_dir(), os.environ, self.ctx.workspace)

    def quiet(self) -> ParseResult:
        """A settle delay passed: look again, to report a box still there, read a trust answer, or
        take the prompt as ready without the SessionStart hook."""
        box_due = self.box.due()
        trust_due = self.trust_settle.due() and self.trust_open
        hookless_due = self.hookless.due() and not self.ready
        resume_due = self.resume_settle.due() and not self.ready
        question_due = self.workspace.settle.due() and not self.ready
        close_due = self.workspace.closing.due() and self.workspace.shown
        self.settled_look = box_due or trust_due
        self.hookless_expired = self.hookless_expired or hookless_due
        self.resume_settled = self.resume_settled or resume_due
        self.workspace.settled = self.workspace.settled or question_due
        self.workspace.close_settled = self.workspace.close_settled or close_due
        return ParseResult(want_screen=box_due or trust_due or hookless_due or resume_due or question_due or close_due)

    def _ready(self, hooks_file: Path | None) -> tuple[list[ProviderEvent], float | None]:
        """The ready event once the prompt counts, or the delay after which to look again."""
        rule = ready_rule(hooks_file, self.hookless_expired, HOOKLESS_READY_SECONDS)
        if rule is None:
            return [], None if self.hookless.pending else self.hookless.start()
        waiting, look_again = self.workspace.ready_wait()
        if waiting:
            return [], look_again
        if not self.workspace.new_start_began(session_records(hooks_file)):
            return [], None  # the new start's SessionStart asks for another look (hooks_log.py)
        if self.workspace.settled and not self.workspace.answered:
            rule += f", no trust question within {workspace_trust.QUESTION_SETTLE_SECONDS:g} s"
        if self.resumed and not self.resume_settled:
            if not self.resume_banner_seen:
                # The prompt drawn before the resume began: wait for the banner, or for the settle.
                return [], None if self.resume_settle.pending else self.resume_settle.start()
            rule += ", the resumed history loaded"
        elif self.resumed:
            rule += f", no resume banner within {RESUME_SETTLE_SECONDS:g} s"
        self.hookless.cancel()
        self.resume_settle.cancel()
        return [self._ready_event(rule)], None

    def _ready_event(self, rule: str) -> ProviderEvent:
        """Ready; in a folder Gemini runs untrusted it starts no MCP server, Wardian's included."""
        ready = self.became_ready(rule, READY)
        untrusted = (
            None if self.ctx is None else trust.untrusted_why(home.user_gemini_dir(), os.environ, self.ctx.workspace)
        )
        if untrusted is None:
            return ready
        why = (
            f"Gemini starts no MCP server in a folder it does not trust ({untrusted}): the model is not offered "
            "Wardian's tools until the folder is trusted (`/permissions` in Gemini)"
        )
        return ready.model_copy(update={"without_mcp": why})

    def _trust_dialog(self, text: str, lines: list[str], settled: bool) -> tuple[list[ProviderEvent], float | None]:
        """Reported when drawn; its answer read from the chat once the box has been gone a while."""
        if TRUST in text:
            self.trust_settle.cancel()
            if self.trust_open:
                return [], None
            self.trust_open = True
            folders = [line[2:] for line in lines if line.startswith("- ")]  # one `- /path` each
            message = "Gemini asks whether to trust folders added to the workspace: " + ", ".join(folders)
            asked = self.event(
                "approval_requested", "trust dialog", TRUST, message=message, reason="trust", dialog=TRUST_DIALOG
            )
            return [asked], None
        if not self.trust_open:
            return [], None
        if NOT_ADDED in text:
            self.trust_open = False
            self.trust_settle.cancel()
            return [self.event("approval_resolved", "trust dialog answered", NOT_ADDED, answer="rejected")], None
        if settled:
            self.trust_open = False
            return [self.event("approval_resolved", "trust dialog answered", READY, answer="accepted")], None
        return [], self.trust_settle.start()


def _box_lines(rows: list[str]) -> list[str]:
    """The screen's rows with a dialog's side borders taken off."""
    return [row.strip().strip("│").strip() for row in rows]
