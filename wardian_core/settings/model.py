"""The settings in `<home>/settings.toml`, as one pydantic model.

Known tables reject unknown keys (a typo must not silently do nothing); unknown
top-level tables are the user's own and are kept. Every field is strict: TOML has
real types, so `trust_workspace = "yes"` is a mistake to report, not to coerce.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

KIBIBYTE = 1024
MEBIBYTE = 1024 * KIBIBYTE


class Section(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", validate_default=True)


class SessionsSettings(Section):
    regular: Literal["fresh", "resume"] = Field(
        "resume",
        description="Regular agent sessions: `resume` continues the provider's conversation on relaunch, "
        "`fresh` starts a new one. An agent's own `session_persistence` overrides it.",
    )


class ProviderSettings(Section):
    """Keys every provider accepts."""

    executable: str | None = Field(
        None,
        min_length=1,
        description="Program to run instead of the provider's CLI found on PATH (a path or a command name).",
    )


class CodexSettings(ProviderSettings):
    sandbox_mode: Literal["read-only", "workspace-write", "danger-full-access"] | None = Field(
        None, description="Codex `--sandbox`; unset leaves Codex's own default."
    )
    approval_policy: Literal["untrusted", "on-failure", "on-request", "never"] | None = Field(
        None, description="Codex `--ask-for-approval`; unset leaves Codex's own default."
    )
    trust_workspace: bool = Field(
        False,
        description="Mark the agent's real workspace as trusted in its Codex home, so Codex does not ask on "
        "every launch; `false` leaves trust to the user's own Codex configuration.",
    )


class GenericSettings(ProviderSettings):
    idle_quiet_seconds: float = Field(
        1.5,
        gt=0,
        le=3600,
        allow_inf_nan=False,
        description="Seconds without output after which a generic agent counts as idle.",
    )


class ProvidersSettings(Section):
    """Which provider accepts which keys: one field per provider, so a new one is one line here."""

    claude: ProviderSettings = Field(default_factory=ProviderSettings)
    codex: CodexSettings = Field(default_factory=CodexSettings)
    gemini: ProviderSettings = Field(default_factory=ProviderSettings)
    opencode: ProviderSettings = Field(default_factory=ProviderSettings)
    generic: GenericSettings = Field(default_factory=GenericSettings)


class HostSettings(Section):
    output_buffer_bytes: int = Field(
        MEBIBYTE,
        ge=64 * KIBIBYTE,
        le=256 * MEBIBYTE,
        description="Output the host keeps per agent, in bytes (64 KiB to 256 MiB).",
    )


class NotifySettings(Section):
    urls: str | None = Field(
        None,
        min_length=1,
        description="Apprise addresses told when an agent needs a person, separated by spaces or commas "
        "(ntfy://, slack://, tgram://, mailto://, json:// ...); needs the `wardian[notify]` extra.",
    )
    unseen_turn_seconds: float = Field(
        60.0,
        ge=0,
        le=86400,
        allow_inf_nan=False,
        description="Seconds a finished turn may go unlooked-at in the web view before it is notified.",
    )


class WebSettings(Section):
    session_idle: float = Field(
        43200.0,
        ge=60,
        le=30 * 86400,
        allow_inf_nan=False,
        description="Seconds a web view session may go unused (no request, no page open) before it ends "
        "(60 s to 30 days).",
    )


class RecordingSettings(Section):
    """Each agent's terminal output, kept with its timing (docs/recordings.md)."""

    enabled: bool = Field(
        True, description="Record every agent's terminal output; an agent spawned with --no-recording is not."
    )
    max_bytes: int = Field(
        64 * MEBIBYTE,
        ge=MEBIBYTE,
        le=64 * 1024 * MEBIBYTE,
        description="What each agent's recording keeps at most, in bytes (1 MiB to 64 GiB); the oldest "
        "quarter is dropped when full.",
    )


class WorktreeCommandSettings(Section):
    """What runs in a new worktree and before one is removed; also a repository's .wardian/worktree.toml."""

    setup: str | None = Field(
        None, min_length=1, description="Shell command run in each new worktree (its path, branch, port base in env)."
    )
    teardown: str | None = Field(None, min_length=1, description="Shell command run in a worktree before removal.")
    timeout_seconds: float = Field(
        300.0, gt=0, le=86400, allow_inf_nan=False, description="Seconds a set-up or tear-down command may run."
    )


class WorktreesSettings(WorktreeCommandSettings):
    root: str | None = Field(
        None,
        min_length=1,
        description="Folder under which agents' worktrees are made, one folder per repository "
        "(default: worktrees/ in the Wardian home).",
    )


class McpSettings(Section):
    """`wardian mcp`, registered in each agent's CLI (docs/mcp.md)."""

    enabled: bool = Field(True, description="Register Wardian's MCP server in every agent's CLI configuration.")
    disabled_for: str = Field(
        "",
        pattern=r"^([a-z][a-z0-9_-]*(,[a-z][a-z0-9_-]*)*)?$",
        description="Providers whose agents do not get it, comma-separated (e.g. `codex,gemini`).",
    )
    allowed_tools: str = Field(
        "",
        pattern=r"^([a-z_]+(,[a-z_]+)*)?$",
        description="Tools allowed without a per-call approval besides the cooperation ones, comma-separated, "
        "or `all`.",
    )

    @field_validator("allowed_tools")
    @classmethod
    def _known_tools(cls, value: str) -> str:
        from wardian_core.mcp_tools import TOOL_NAMES

        unknown = [name for name in value.split(",") if name and name != "all" and name not in TOOL_NAMES]
        if unknown:
            raise ValueError(f"unknown tool(s) {', '.join(unknown)}; the tools are {', '.join(TOOL_NAMES)}")
        return value

    def providers_off(self) -> set[str]:
        return {name for name in self.disabled_for.split(",") if name}

    def extra_tools(self) -> list[str]:
        return [name for name in self.allowed_tools.split(",") if name]


class BudgetLimits(Section):
    """What an agent may use (docs/limits.md#budgets); unset: no limit on that figure."""

    tokens: int | None = Field(
        None,
        ge=1,
        le=10**15,
        description="Tokens an agent may use: input (cache writes included) and output, cache reads only "
        "with budgets.count_cache_reads.",
    )
    usd: float | None = Field(
        None, gt=0, le=10**9, allow_inf_nan=False, description="Dollars an agent may spend, as its CLI reports cost."
    )
    minutes: float | None = Field(
        None,
        gt=0,
        le=10**7,
        allow_inf_nan=False,
        description="Minutes of wall time an agent may run, counted from its spawn.",
    )


class BudgetOverride(BudgetLimits):
    """A class's or an agent's own budget: what it sets replaces the home's."""

    hard: bool | None = Field(None, description="Interrupt the turn that reaches the budget.")


class BudgetsSettings(BudgetLimits):
    """`[budgets]`: the home's budget for each agent, `[budgets.classes.NAME]` a class's,
    `[budgets.agents.NAME]` one agent's; an agent's own (`agent spawn --budget`, `agent budget
    --raise`) comes before them all."""

    hard: bool = Field(
        False,
        description="Interrupt the turn that reaches a budget at once (the provider's interrupt key); "
        "false lets it finish, then holds the agent.",
    )
    count_cache_reads: bool = Field(False, description="Count cache reads in a token budget too.")
    classes: dict[str, BudgetOverride] = Field(default_factory=dict, description="Per class, by class name.")
    agents: dict[str, BudgetOverride] = Field(default_factory=dict, description="Per agent, by agent name.")


class LimitsSettings(Section):
    """What Wardian does when an agent's CLI hits a usage limit (docs/limits.md)."""

    resume: Literal["auto", "ask"] = Field(
        "auto",
        description="`auto`: continue the cut turn once the limit resets, as the provider says; `ask`: put the "
        "agent in the person's queue (`wardian inbox`) for `wardian agent resume-limit`.",
    )
    resume_delay_min_seconds: float = Field(
        5.0, ge=0, le=3600, allow_inf_nan=False, description="The least random delay after the reset before a resume."
    )
    resume_delay_max_seconds: float = Field(
        30.0, ge=0, le=3600, allow_inf_nan=False, description="The most random delay after the reset before a resume."
    )
    unknown_reset_seconds: float = Field(
        3600.0,
        gt=0,
        le=7 * 86400,
        allow_inf_nan=False,
        description="When the CLI says no reset time: how long after the limit hit Wardian tries to resume.",
    )
    resume_concurrency: int = Field(4, ge=1, le=100, description="Resumes under way at once, at most.")
    turn_wait_seconds: float = Field(
        300.0,
        gt=0,
        le=86400,
        allow_inf_nan=False,
        description="How long a resume waits for the turn to start: the CLI's own retry, or a relaunched CLI's "
        "prompt; past it the resume failed.",
    )

    @model_validator(mode="after")
    def _delays_in_order(self) -> "LimitsSettings":
        if self.resume_delay_min_seconds > self.resume_delay_max_seconds:
            raise ValueError("resume_delay_min_seconds is above resume_delay_max_seconds")
        return self


class Settings(BaseModel):
    """All of `settings.toml`; a missing file or table means the defaults."""

    # extra="allow": top-level tables Wardian does not know belong to the user and are kept.
    model_config = ConfigDict(strict=True, extra="allow")

    sessions: SessionsSettings = Field(default_factory=SessionsSettings)
    providers: ProvidersSettings = Field(default_factory=ProvidersSettings)
    host: HostSettings = Field(default_factory=HostSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    worktrees: WorktreesSettings = Field(default_factory=WorktreesSettings)
    notify: NotifySettings = Field(default_factory=NotifySettings)
    web: WebSettings = Field(default_factory=WebSettings)
    recording: RecordingSettings = Field(default_factory=RecordingSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    budgets: BudgetsSettings = Field(default_factory=BudgetsSettings)
