"""Status of a generic command, by the best rule its output allows.

1. Shell integration marks (OSC 133, written by the bash and zsh start-up Wardian extends,
   or by any program that writes them): a command runs from C to D, its exit code is
   evidence, a prompt (A) is idle. Once a mark was seen, marks alone decide.
2. A `prompt_pattern` (per-agent provider setting): output after the prompt starts a
   turn, as does input submitted at it (the newline that ends the prompt's line, so a
   command that prints nothing is a turn too); the pattern matching the last line of
   output ends it. No quiet time. A line is kept as the screen shows it: a carriage return
   alone (a redraw) goes back to the line's start, it does not end the line.
3. Quiet time: output after a quiet spell starts a turn, `idle_quiet_seconds` without
   output ends it (the host calls back after the delay asked for; nothing polls).

Each event's evidence names its rule. Until the command is first idle it is starting, but
under quiet time a command that prints through a whole quiet time from launch is busy: the
quiet timer would never fire for it, so while starting the parser asks to be called every
quarter of the quiet time and counts the calls with and without output between them.

A bash or zsh whose start-up Wardian extended (`shell_startup`) will print mark A at its
first prompt: until then no quiet is taken for ready, however long a loaded machine or the
user's start-up files keep it silent. Only if no mark came within `MARKS_EXPECTED_SECONDS`
(the user's start-up replaced the shell, say `exec fish`) does quiet time take over.
"""

import re
from dataclasses import dataclass, field
from typing import Literal

from wardian_core import hookimpl
from wardian_core.parsing.escapes import TerminalText
from wardian_core.parsing.events import event
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent, SpawnContext, excerpt
from wardian_host.providers.builtin_generic.profile import DEFAULT_IDLE_QUIET_SECONDS
from wardian_host.providers.builtin_generic.shell_marks import MarkScanner, ShellMark
from wardian_host.providers.builtin_generic.shell_startup import integrated_shell

_TAIL_CHARS = 400
# Only the end of a large batch can hold the prompt; its start is scanned for content only.
_LARGE_BATCH_BYTES = 16384

RULE_PROMPT_MARK = "shell mark A (prompt)"
RULE_COMMAND_MARK = "shell mark C (command started)"
RULE_FINISHED_MARK = "shell mark D (command finished)"
RULE_OUTPUT_AFTER_PROMPT = "output after the prompt"
RULE_SUBMITTED_AT_PROMPT = "input submitted at the prompt"
# While starting under quiet time: calls per quiet time; this many in a row with output
# make the command busy, this many without make it ready (after at least the quiet time).
STARTING_TICKS = 4
# How long an integrated shell's start-up may take to print its first mark before quiet time decides.
MARKS_EXPECTED_SECONDS = 20.0


@dataclass
class GenericState:
    phase: Literal["starting", "busy", "idle"] = "starting"
    tail: str = ""
    text: TerminalText = field(default_factory=TerminalText)
    marks: MarkScanner = field(default_factory=MarkScanner)
    shell_marks: bool = False  # a mark was seen: the other rules are off for this launch
    awaiting_marks: bool = False  # an integrated shell starting: its first mark, not quiet, says ready
    command_running: bool = False  # between a C and its D (or the next prompt)
    # Adopted, caught up and quiet since: the first quiet time ends a turn the previous host saw begin.
    ending_adopted_turn: bool = False
    starting_ticks: "StartingTicks" = field(default_factory=lambda: StartingTicks())


@dataclass
class StartingTicks:
    """Quiet time's calls while starting: output heard since the last, and the runs of
    calls with and without output."""

    armed: bool = False
    heard: bool = False
    with_output: int = 0
    without_output: int = 0

    def arm(self, quiet_time: float) -> float:
        self.armed = True
        return quiet_time / STARTING_TICKS

    def tick(self) -> Literal["busy", "quiet", "waiting"]:
        """One call: whether output ran through a quiet time, or none came for one."""
        self.armed = False
        if self.heard:
            self.heard, self.with_output, self.without_output = False, self.with_output + 1, 0
        else:
            self.with_output, self.without_output = 0, self.without_output + 1
        if self.with_output >= STARTING_TICKS:
            return "busy"
        return "quiet" if self.without_output >= STARTING_TICKS else "waiting"


@dataclass
class GenericParser:
    """The parser of one launch's output (the PTY: generic reads nothing else)."""

    ctx: SpawnContext
    source: OutputSource
    state: GenericState = field(default_factory=GenericState)

    def opened(self) -> ParseResult:
        return opened(self.ctx, self.state)

    def feed(self, data: bytes) -> ParseResult:
        return parse(self.ctx, self.source, data, self.state)

    def quiet(self) -> ParseResult:
        return quiet(self.ctx, self.source, self.state)

    def caught_up(self) -> ParseResult:
        return caught_up(self.ctx, self.state)


def quiet_seconds(ctx: SpawnContext) -> float:
    value = ctx.launch.settings.get("idle_quiet_seconds", DEFAULT_IDLE_QUIET_SECONDS)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return DEFAULT_IDLE_QUIET_SECONDS
    return float(value)


def prompt_pattern(ctx: SpawnContext) -> re.Pattern[str] | None:
    pattern = ctx.launch.settings.get("prompt_pattern")
    if not pattern:
        return None
    try:
        return re.compile(str(pattern))
    except re.error:
        return None  # refused at launch by argv.check_settings; never raise here


def _line_feeds(text: str) -> str:
    """CR LF is a line end; a CR alone stays, as the redraw it is (see `_shown`)."""
    return text.replace("\r\n", "\n")


def _shown(line: str) -> str:
    """What a line shows once its carriage returns redrew it: the text after the last one
    followed by text (a CR at the end moved the cursor and erased nothing)."""
    return line.rstrip("\r").rsplit("\r", 1)[-1]


def _last_line(text: str) -> str:
    return _shown(text.rsplit("\n", 1)[-1])


def visible_text(state: GenericState, data: bytes) -> str:
    """Decoded output without escape sequences, across chunk boundaries."""
    if len(data) > _LARGE_BATCH_BYTES:
        # Restart decoding at each cut (a split character is dropped): only head and tail matter.
        state.text = TerminalText()
        head = state.text.feed(data[: _LARGE_BATCH_BYTES // 4])
        state.text = TerminalText()
        tail = state.text.feed(data[-_LARGE_BATCH_BYTES:])
        return _line_feeds(tail if tail.strip() else head)
    return _line_feeds(state.text.feed(data))


def _first_line(text: str) -> str:
    """The line that showed activity."""
    return next((_shown(line) for line in text.split("\n") if _shown(line).strip()), text)


def _went_idle(state: GenericState, source: OutputSource, rule: str, line: str | None) -> list[ProviderEvent]:
    phase, state.phase = state.phase, "idle"
    if phase == "starting":
        return [event("ready", source, rule, line)]
    if phase == "busy":
        return [event("turn_completed", source, rule, line)]
    return []


def _turn_started(state: GenericState, source: OutputSource, rule: str, line: str | None) -> list[ProviderEvent]:
    state.ending_adopted_turn = False
    if state.phase == "busy":
        return []
    state.phase = "busy"
    return [event("turn_started", source, rule, line)]


def opened(ctx: SpawnContext, state: GenericState) -> ParseResult:
    """A command that prints nothing is ready once quiet (the rule without a prompt pattern);
    a shell with Wardian's integration once it prints its prompt's mark."""
    if prompt_pattern(ctx) is not None:
        return ParseResult()
    if integrated_shell(ctx) is not None:
        state.awaiting_marks = True
        return ParseResult(call_again_after=MARKS_EXPECTED_SECONDS)
    return ParseResult(call_again_after=state.starting_ticks.arm(quiet_seconds(ctx)))


def caught_up(ctx: SpawnContext, state: GenericState) -> ParseResult:
    """An adopted launch, its old output replayed: under quiet time, its start is long past
    (what the replay made of the phase counted no time). Output from here on starts a turn;
    a quiet time without any ends the turn the previous host may have seen begin (no change
    for an agent that was idle). Marks and a prompt pattern read the replay as it is."""
    if state.shell_marks or prompt_pattern(ctx) is not None:
        return ParseResult()
    # No mark in the whole replay: whatever the shell's start-up did, it wrote none, and won't now.
    state.awaiting_marks = False
    state.phase, state.ending_adopted_turn = "idle", True
    return ParseResult(call_again_after=quiet_seconds(ctx))


def quiet(ctx: SpawnContext, source: OutputSource, state: GenericState) -> ParseResult:
    if state.shell_marks or prompt_pattern(ctx) is not None:
        return ParseResult()  # a timer armed before the first mark: marks decide now
    quiet_time = quiet_seconds(ctx)
    if state.awaiting_marks:  # no mark came in all that time: the shell is not the one integrated
        state.awaiting_marks = False
        return ParseResult(call_again_after=state.starting_ticks.arm(quiet_time))
    if state.ending_adopted_turn:
        state.ending_adopted_turn = False
        return ParseResult(events=[event("turn_completed", source, f"quiet for {quiet_time:g}s", None)])
    if state.phase != "starting":
        return ParseResult(events=_went_idle(state, source, f"quiet for {quiet_time:g}s", None))
    found = state.starting_ticks.tick()
    if found == "quiet":
        return ParseResult(events=_went_idle(state, source, f"quiet for {quiet_time:g}s", None))
    if found == "busy":  # from here on each output re-arms the quiet time, as after any turn
        rule, latest = f"output through {quiet_time:g}s from launch", _last_line(state.tail.strip())
        return ParseResult(events=_turn_started(state, source, rule, excerpt(latest)), call_again_after=quiet_time)
    return ParseResult(call_again_after=state.starting_ticks.arm(quiet_time))


def parse(ctx: SpawnContext, source: OutputSource, data: bytes, state: GenericState) -> ParseResult:
    pieces = state.marks.feed(data)
    if state.shell_marks or any(isinstance(piece, ShellMark) for piece in pieces):
        state.shell_marks = True
        return ParseResult(events=[found for piece in pieces for found in _by_mark(source, piece, state)])
    text = visible_text(state, b"".join(piece for piece in pieces if isinstance(piece, bytes)))
    pattern = prompt_pattern(ctx)
    if pattern is not None:
        return ParseResult(events=_by_prompt(source, text, state, pattern))
    if not text.strip():
        return ParseResult()  # cursor moves and redraws are not activity
    state.tail = _with_output(state.tail, text)
    if state.phase == "starting":
        ticks = state.starting_ticks
        ticks.heard = True
        waiting = ticks.armed or state.awaiting_marks
        return ParseResult(call_again_after=None if waiting else ticks.arm(quiet_seconds(ctx)))
    started = _turn_started(state, source, "output after quiet", _first_line(text)) if state.phase == "idle" else []
    return ParseResult(events=started, call_again_after=quiet_seconds(ctx))


def _with_output(tail: str, text: str) -> str:
    # A CR LF split between two reads is still one line end.
    return _line_feeds(tail + text)[-_TAIL_CHARS:]


def _submitted(tail: str, text: str, pattern: re.Pattern[str]) -> str | None:
    """The prompt's line with input typed after the prompt, when `text` ends it with a newline:
    the input was submitted, whatever the command then prints (perhaps nothing)."""
    if "\n" not in text:
        return None
    line = _shown(tail.rsplit("\n", 1)[-1] + text.split("\n", 1)[0])
    prompt = pattern.search(line)
    return line.strip() if prompt is not None and line[prompt.end() :].strip() else None


def _by_prompt(source: OutputSource, text: str, state: GenericState, pattern: re.Pattern[str]) -> list[ProviderEvent]:
    """Input submitted at the prompt or output after it starts a turn; the prompt on the last
    line ends it, in one read or two.

    Blank output counts here: a newline ends the line a prompt showed on (the output that
    follows is no longer on the prompt's line), and a prompt's last characters may be blanks."""
    submitted = _submitted(state.tail, text, pattern)
    state.tail = _with_output(state.tail, text)
    last_line = _last_line(state.tail)
    shows_prompt = pattern.search(last_line) is not None
    # The prompt redrawn alone (an empty line typed) is no turn; output before it is.
    before_prompt = text.rsplit("\n", 1)[0] if "\n" in text else ""
    output = before_prompt if shows_prompt else text
    events = []
    if state.phase == "idle" and submitted is not None:
        events += _turn_started(state, source, RULE_SUBMITTED_AT_PROMPT, excerpt(submitted))
    elif state.phase == "idle" and output.strip():
        events += _turn_started(state, source, RULE_OUTPUT_AFTER_PROMPT, _first_line(output))
    if shows_prompt:
        events += _went_idle(state, source, f"prompt_pattern {pattern.pattern}", excerpt(last_line))
    return events


def _by_mark(source: OutputSource, piece: bytes | ShellMark, state: GenericState) -> list[ProviderEvent]:
    """One piece of output in marks mode: marks decide, text between them is not activity.

    No line is kept as evidence: zsh redraws what is typed and erases its own marks with
    carriage returns and backspaces, so the stream's text is not what the screen shows.
    """
    if isinstance(piece, bytes):
        return []
    if piece.kind == "C":
        state.command_running = True
        return _turn_started(state, source, RULE_COMMAND_MARK, None)
    if piece.kind == "D" and state.command_running:
        state.command_running = False
        return _finished(source, piece.exit_code, state)
    if piece.kind == "A":
        state.command_running = False
        return _went_idle(state, source, RULE_PROMPT_MARK, None)
    return []  # B (input starts) and a D after no command (an empty line) change nothing


def _finished(source: OutputSource, exit_code: int | None, state: GenericState) -> list[ProviderEvent]:
    if state.phase != "busy":
        return []
    state.phase = "idle"
    if exit_code is None:
        return [event("turn_completed", source, RULE_FINISHED_MARK)]
    message, data = f"exit code {exit_code}", {"exit_code": exit_code}
    return [event("turn_completed", source, RULE_FINISHED_MARK, message=message, data=data)]


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> GenericParser:
    return GenericParser(ctx, source)
