"""The models of the provider contract: what the host passes to a provider's hooks and
what the hooks answer (see `wardian_core.hookspecs`).

A provider imports these from `wardian_core` (never from `wardian_host`). They are
kept apart from `wardian_core.models` so nothing on the CLI's read path imports them.
"""

import math
import re
from pathlib import Path
from typing import Any, Literal, Self, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The version of the hook contract in `wardian_core.hookspecs`. A provider declares the
# version it was built for in `ProviderInfo.contract_version`; the host refuses any other.
# 2: approval reasons and dialogs, resume through `resume_args`, several telemetry sources
#    (files, directories, SSE, commands), typed parser state, explicit open/quiet/screen calls.
# 3: `parse_output(ctx, source)` answers one parser object per source (feed, opened, quiet,
#    screen) holding its own memory; parser_state, source_opened, source_quiet and
#    parse_screen are gone; the specs live in `wardian_core.hookspecs`.
CONTRACT_VERSION = 3

EventKind = Literal[
    "session_started",
    "ready",
    "turn_started",
    "generating",
    "approval_requested",
    "approval_resolved",
    "turn_completed",
    "error",
    "session_ended",
    "usage_reported",
    "limit_reached",
    "limit_retrying",
]
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)

# Why a provider waits for a person: a tool to approve, a workspace to trust, a sign-in, a
# question it asks, a first-run choice (theme, API key).
ApprovalReason = Literal["tool", "trust", "sign_in", "question", "onboarding"]
APPROVAL_REASONS: tuple[str, ...] = get_args(ApprovalReason)

# Capabilities the host knows how to use; a provider may declare others for its own tools.
KNOWN_CAPABILITIES = ("interactive", "headless", "resume", "approvals", "model_selection", "skills")


class _Model(BaseModel):
    # Schemas are built on first use: `providers list` validates two of these models, not all.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class DialogKeys(_Model):
    """The keys that answer one dialog; None where the dialog cannot be answered that way."""

    accept: str | None = Field(None, min_length=1)
    reject: str | None = Field(None, min_length=1)
    settle_seconds: float = Field(
        0.0,
        ge=0,
        le=5,
        description="Keys typed sooner after the dialog was drawn (or reported, when `drawn` is not declared, or "
        "already on screen at the answer) may be dropped by the CLI: the host waits.",
    )
    drawn: str | None = Field(
        None,
        min_length=1,
        description="Text on the screen once the dialog is painted. A hook or event stream may report the dialog "
        "before the CLI draws it: the host types no key before the screen shows this (up to half the answer's "
        "timeout; then it types anyway).",
    )

    def for_answer(self, answer: str) -> str | None:
        return self.accept if answer == "accept" else self.reject


# The longest a provider may declare its turn-start signal takes (`turn_start_seconds`): a send
# waits up to twice that (a second submit), and the CLI waits for the send's answer that long.
TURN_START_LIMIT_SECONDS = 30.0


class InputProfile(_Model):
    """How the host types into this provider's terminal."""

    submit_key: str = Field("\r", description="What submits a prompt once typed.")
    bracketed_paste: bool = Field(True, description="Wrap multi-line or long input in bracketed paste.")
    paste_threshold: int = Field(200, ge=0, description="Single-line input longer than this is pasted too.")
    settle_seconds: float = Field(0.05, ge=0, description="Pause between pasting and the submit key.")
    submit_once_drawn: bool = Field(
        False,
        description="The submit key may follow as soon as the typed text's last word is on screen (a TUI that "
        "takes each read as it comes, with no paste timing), at most `settle_seconds` after typing. False: "
        "always the full `settle_seconds`.",
    )
    dialogs: dict[str, DialogKeys] = Field(
        default_factory=dict,
        description="Per dialog (the `dialog` an approval_requested event names): the keys answering it.",
    )
    sender_tag: bool = Field(
        True, description="Whether `send` from another agent types `[from <agent>] ` before the text."
    )
    turn_start_seconds: float | None = Field(
        None,
        gt=0,
        le=TURN_START_LIMIT_SECONDS,
        description="How soon after the submit key the provider's turn-start signal (a `turn_started` event) "
        "comes: `send` waits this long for it to confirm a prompt was taken. None: the provider offers none.",
    )
    input_marker: str | None = Field(
        None,
        min_length=1,
        description="What begins the input box's row on screen, inside its frame (Claude's `❯`): without the "
        "turn-start signal, the host reads there whether typed text still waits to be submitted.",
    )
    paste_placeholder: str | None = Field(
        None,
        min_length=1,
        description="A regular expression for what the CLI draws in its input box in place of a long paste "
        "(Gemini's `[Pasted Text: 532 chars]`): a paste's own words never show there, so the host reads this "
        "to tell whether a pasted prompt still waits to be submitted.",
    )
    interrupt_key: str | None = Field(
        None,
        min_length=1,
        description="What interrupts a turn under way (Claude's Esc): a hard budget types it the moment the "
        "agent's use reaches its budget. None: the provider declares none, and the turn is let finish.",
    )
    interrupt_presses: int = Field(
        1,
        ge=1,
        le=3,
        description="How many times the interrupt key is typed, each alone, 0.3 s apart (OpenCode interrupts at "
        "a second Esc, and two in one write read as Alt+Esc).",
    )

    @field_validator("paste_placeholder")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        try:
            re.compile(pattern or "")
        except re.error as bad:
            raise ValueError(f"not a regular expression: {bad}") from None
        return pattern


class TestedVersions(_Model):
    """The oldest and newest CLI versions the provider's tests ran against."""

    oldest: str = Field(min_length=1)
    newest: str = Field(min_length=1)


class ProviderSetting(_Model):
    """One per-agent setting a provider takes (`agent spawn --provider-setting NAME=VALUE`)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    type: Literal["string", "integer", "number", "boolean"] = "string"
    choices: list[str | int | float | bool] | None = None
    default: str | int | float | bool | None = Field(None, description="In force when no one sets it.")
    description: str = ""

    @model_validator(mode="after")
    def _default_is_a_choice(self) -> "ProviderSetting":
        if self.default is not None and self.choices is not None and self.default not in self.choices:
            raise ValueError(f"default {self.default!r} of setting {self.name!r} is not one of {self.choices}")
        return self


class ProviderInfo(_Model):
    """Who a provider is and what it needs; answered by the `provider_info` hook."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$", description="Equal to the plugin's entry-point name.")
    display_name: str
    contract_version: int
    executable: str | None = Field(description="Command the provider runs; None when the user supplies it.")
    version_args: list[str] = Field(default_factory=lambda: ["--version"])
    install_hint: str | None = Field(None, description="How a user installs the executable.")
    instruction_file: str | None = Field(None, description="e.g. CLAUDE.md, AGENTS.md, GEMINI.md")
    session_id_mode: Literal["assigned", "discovered"]
    capabilities: list[str] = Field(default_factory=list)
    input_profile: InputProfile = Field(default_factory=InputProfile)
    tested_versions: TestedVersions | None = Field(None, description="None for a provider without a CLI of its own.")
    settings: list[ProviderSetting] = Field(default_factory=list, description="The per-agent settings it accepts.")
    prefer_native_executable: bool = Field(
        False,
        description="On PATH, a native binary of `executable`'s name wins over a script shim found before it "
        "(a `#!` script, `.cmd`, `.bat`, `.ps1`): the host launches that binary itself.",
    )

    @field_validator("capabilities")
    @classmethod
    def _capability_names(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value or not value.replace("_", "").isalnum() or not value.islower():
                raise ValueError(f"capability {value!r} is not a lower_snake_case name")
        return values


class LaunchConfig(_Model):
    """An agent's launch configuration, stored with it so resume and restart reproduce it."""

    model: str | None = None
    extra_args: list[str] = Field(default_factory=list, description="For `generic`: the command to run.")
    include_dirs: list[Path] = Field(default_factory=list)
    session_persistence: Literal["default", "fresh", "resume"] = "default"
    settings: dict[str, Any] = Field(default_factory=dict, description="Provider settings (settings.toml).")
    recording: bool = Field(True, description="Record its terminal output (docs/recordings.md).")


class McpRegistration(_Model):
    """Wardian's MCP server (`wardian mcp`) as the agent's CLI is to start it: a provider whose CLI
    speaks MCP adds it to the agent's projected configuration, beside the user's own servers."""

    name: str = Field("wardian", description="The server's name in the CLI's configuration.")
    command: str = Field(min_length=1, description="The program, an absolute path.")
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(
        default_factory=dict, description="Set in the server's environment: some CLIs pass a server little of theirs."
    )
    allowed_tools: list[str] = Field(
        default_factory=list, description="The tools the CLI may run without asking a person each time."
    )


class SpawnContext(_Model):
    """Everything a provider needs to know about one launch of one agent."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    agent_uuid: str
    agent_name: str
    class_name: str = Field(alias="class")
    provider: str
    workspace: Path
    include_roots: list[Path] = Field(default_factory=list, description="common/, classes/<C>/, agents/<uuid>/")
    wardian_home: Path
    agent_dir: Path = Field(description="agents/<uuid>/: the place for this agent's provider home.")
    mode: Literal["interactive", "headless"] = "interactive"
    session_mode: Literal["fresh", "resume"] = "fresh"
    provider_session_id: str | None = Field(
        None, description="The session to resume, or the id assigned up front to a fresh one."
    )
    prompt: str | None = Field(None, description="Headless launches: the first (and only) prompt.")
    resume_args: list[str] = Field(
        default_factory=list,
        description="Resume launches: what the provider's `resume_args` answered, for build_argv to place.",
    )
    launch: LaunchConfig = Field(default_factory=LaunchConfig)
    mcp: McpRegistration | None = Field(None, description="Register this MCP server; None: register none.")

    @property
    def interactive(self) -> bool:
        return self.mode == "interactive"


class HomePlan(_Model):
    """What `prepare_home` did: the environment to add to the launch."""

    env: dict[str, str] = Field(default_factory=dict)


class LaunchPlan(_Model):
    """What `build_argv` answers: the process the host starts."""

    argv: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: Path


SourceKind = Literal["pty", "headless", "file", "directory", "sse", "command"]
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class OutputSource(_Model):
    """A named stream of provider output the host feeds to `parse_output`.

    `pty` (raw terminal bytes in arbitrary chunks) and `headless` (stdout of a headless
    run, a line per call) are the host's own. A provider names its telemetry as:
    `file` (`path`, followed line by line as it grows: a hook's JSONL, a session log);
    `directory` (`path`, each file whose name matches `pattern` that appears there or in
    a folder below it after the host started watching, as one call with its path relative
    to `path`); `sse` (`url` on the loopback interface, with `headers`, one call per
    event's data); `command` (`argv` run by the host, one call per line of its stdout).
    The host reconnects streams and restarts commands that end while the agent runs.

    `holds_ready`: the agent is not reported ready, whichever source says so, until this
    source delivered its first line: for a stream whose first event says the subscription
    is live (OpenCode's `server.connected`), so that a turn sent at once is not missed.
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$")
    kind: SourceKind = "file"
    format: Literal["chunks", "lines"] = "lines"
    path: Path | None = None
    pattern: str = Field("*", description="`directory`: the file names to report (a glob).")
    start_at_end: bool = Field(False, description="`file`: skip what it holds when opened (a resumed log's history).")
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict, repr=False, description="`sse`: e.g. a credential.")
    argv: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, repr=False, description="`command`: added environment.")
    holds_ready: bool = Field(False, description="Hold the agent's ready until this source's first line.")

    @model_validator(mode="after")
    def _what_the_kind_needs(self) -> Self:
        if self.kind in ("file", "directory") and self.path is None:
            raise ValueError(f"a {self.kind} source needs a path")
        if self.kind == "command" and not self.argv:
            raise ValueError("a command source needs argv")
        if self.kind == "sse":
            parts = urlsplit(self.url or "")
            if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
                raise ValueError("an sse source needs an http:// url on 127.0.0.1, ::1 or localhost")
        return self

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes two answers of `approval_source` the same source (kept open, not reopened)."""
        return (self.name, self.kind, self.path, self.pattern, self.url, tuple(self.argv))


PTY_SOURCE = OutputSource(name="pty", kind="pty", format="chunks")
HEADLESS_SOURCE = OutputSource(name="headless", kind="headless", format="lines")


class Evidence(_Model):
    """What produced an event: the source, the parser rule and the line it matched."""

    source: str
    rule: str
    line: str | None = Field(None, max_length=500)


Tokens = int | None


class RateLimitWindow(_Model):
    """One rate-limit window a CLI reports (Codex's primary and secondary): None where it does not say."""

    name: str = Field(min_length=1, description="The CLI's name for the window, e.g. `primary`.")
    used_percent: float | None = Field(None, ge=0)
    window_minutes: int | None = Field(None, ge=0)
    resets_at: str | None = Field(None, description="When the window resets, ISO 8601 UTC.")


class UsageReport(_Model):
    """What a CLI's own record says one turn (or one model call within it) cost.

    Every figure is the CLI's: None where it reports none ("unknown"), never 0 in its place,
    and never a price of Wardian's own. `input_tokens` excludes the cache reads and writes
    (counted apart); `output_tokens` includes the reasoning tokens, counted apart too.
    `turn_key` names the record in its source (a message id, a line's offset) so that a
    record read twice, after a restart or a re-read, is counted once.
    """

    turn_key: str = Field(min_length=1, max_length=300)
    model: str | None = None
    input_tokens: Tokens = Field(None, ge=0)
    output_tokens: Tokens = Field(None, ge=0)
    cache_read_tokens: Tokens = Field(None, ge=0)
    cache_write_tokens: Tokens = Field(None, ge=0)
    reasoning_tokens: Tokens = Field(None, ge=0)
    cost_usd: float | None = Field(None, ge=0)
    context_used: Tokens = Field(None, ge=0, description="Tokens in the context window after this call.")
    context_window: Tokens = Field(None, gt=0)
    rate_limits: list[RateLimitWindow] = Field(default_factory=list)
    recorded_at: str | None = Field(
        None, description="When the CLI recorded it (ISO 8601); the host's clock when None."
    )


# What ran out, in the CLI's words: a plan's session (5-hour) or weekly allowance, a usage quota,
# a rate limit (requests or tokens per minute), or one the CLI does not name.
LimitKind = Literal["session", "weekly", "usage", "rate", "other"]
LIMIT_KINDS: tuple[LimitKind, ...] = get_args(LimitKind)


class LimitReport(_Model):
    """A usage limit the CLI says it hit (`limit_reached`, `limit_retrying`).

    `resets_at` is the CLI's own time (ISO 8601 UTC) at the precision it gives (a screen to the
    minute, a rollout to the second); None where it says none. `retry_at`: when a CLI that retries
    by itself (`limit_retrying`) makes its next attempt, when it says.
    """

    kind: LimitKind
    resets_at: str | None = Field(None, description="When the limit resets, ISO 8601 UTC.")
    retry_at: str | None = Field(None, description="The CLI's next attempt by itself, ISO 8601 UTC.")
    message: str | None = Field(None, max_length=500, description="What the CLI said, as a person saw it.")


class LimitResume(_Model):
    """How to continue a turn a limit cut, once the limit reset (the `limit_resume` hook).

    `keys`: named keys (`InputProfile`'s names: `escape`, `enter`, `down`…) typed first, to leave
    whatever the CLI opened when the limit hit (a menu offering to upgrade or switch the model)
    without taking its offer; then `text`, typed and submitted as a prompt, as `send` does. `resume`:
    the agent is relaunched with its session resumed (`resume_args`) and `text` sent once it is
    idle. `wait`: the CLI retries by itself; Wardian only watches for the retried turn.
    """

    how: Literal["text", "resume", "wait"] = "text"
    keys: list[str] = Field(default_factory=list, max_length=20)
    text: str | None = Field("continue", min_length=1, max_length=2000)

    @field_validator("keys")
    @classmethod
    def _named_keys(cls, keys: list[str]) -> list[str]:
        from wardian_core.named_keys import NAMED_KEYS

        unknown = [key for key in keys if key not in NAMED_KEYS]
        if unknown:
            raise ValueError(f"unknown key name(s) {', '.join(unknown)}; the names are {', '.join(NAMED_KEYS)}")
        return keys

    @model_validator(mode="after")
    def _text_unless_waiting(self) -> Self:
        if self.how != "wait" and self.text is None:
            raise ValueError(f"a {self.how!r} resume types a text: give one")
        return self


class ProviderEvent(_Model):
    """One event of docs/architecture.md's "Events and statuses"; only the host turns events into statuses."""

    kind: EventKind
    evidence: Evidence
    session_id: str | None = None
    # The provider's id of the turn the event belongs to, when it names its turns: once that
    # turn ended, its later news changes no status (`wardian_core.status_rules.TurnEnd`).
    turn: str | None = Field(None, min_length=1, max_length=200)
    message: str | None = None
    # approval_requested: why, and which dialog (a key of `InputProfile.dialogs`) answers it.
    reason: ApprovalReason | None = None
    dialog: str | None = Field(None, pattern=r"^[a-z][a-z0-9_-]*$")
    # approval_resolved: how the dialog was left, when the provider can tell.
    answer: Literal["accepted", "rejected", "dismissed"] | None = None
    # usage_reported: the figures.
    usage: UsageReport | None = None
    # limit_reached and limit_retrying: which limit, and when it resets.
    limit: LimitReport | None = None
    # ready: why this launch's CLI starts no MCP server, Wardian's included (Gemini in an untrusted
    # folder): the host then waits for no listing of Wardian's tools and says they are missing.
    without_mcp: str | None = Field(None, min_length=1, max_length=500)
    data: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _dialog_fields_belong_to_dialogs(self) -> Self:
        if self.kind == "approval_requested" and (self.reason is None or self.dialog is None):
            raise ValueError("approval_requested needs a reason and the dialog it opened")
        if self.kind != "approval_requested" and (self.reason is not None or self.dialog is not None):
            raise ValueError("only approval_requested carries a reason and a dialog")
        if self.kind != "approval_resolved" and self.answer is not None:
            raise ValueError("only approval_resolved carries an answer")
        if (self.kind == "usage_reported") != (self.usage is not None):
            raise ValueError("usage_reported, and only it, carries usage")
        if (self.kind in ("limit_reached", "limit_retrying")) != (self.limit is not None):
            raise ValueError("limit_reached and limit_retrying, and only they, carry a limit")
        if self.kind != "ready" and self.without_mcp is not None:
            raise ValueError("only ready says the CLI runs without MCP servers")
        return self


class ParseResult(_Model):
    """What every parser call answers.

    `call_again_after`: seconds after which the host calls the parser's `quiet` for the same
    source, replacing any quiet call pending for it; None leaves a pending one in place.
    `want_screen`: the host brings the agent's screen model up to date (off its loop) and
    calls the parser's `screen` with it once; set again while one is pending, it is still one call.
    `sources_changed`: the host asks `approval_source` again and opens what is new.
    `at_rest`: after this line of a followed file, the parser holds what a new parser for the
    same context would: a later host that resumes the file replays it from here, not from the
    launch's first line. Say it only where nothing read before is needed again.
    """

    events: list[ProviderEvent] = Field(default_factory=list)
    call_again_after: float | None = Field(None, ge=0)
    want_screen: bool = False
    sources_changed: bool = False
    at_rest: bool = False

    @field_validator("call_again_after")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("call_again_after must be a finite number of seconds")
        return value

    def rests(self) -> bool:
        """Whether a next host may begin its replay after this line: the parser is at rest, and
        the line asked nothing of the host that a replay of it would ask again (a look at the
        screen, a quiet call, the sources read again: the state those rebuild is the host's)."""
        return self.at_rest and not (self.want_screen or self.sources_changed) and self.call_again_after is None


def excerpt(text: str, limit: int = 200) -> str:
    """A line short enough to keep as evidence."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
