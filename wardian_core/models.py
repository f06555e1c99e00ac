"""Pydantic models of Wardian's boundary formats.

These define the formats; the CLI's hot read path uses plain data
(`wardian_core.fields`), which tests check against these models.
"""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from wardian_core.asks import REQUEST_ID_PATTERN, ReplySource, ReplyStatus, RequestState
from wardian_core.mcp_tools import McpToolsState
from wardian_core.statuses import Status


class StatusSource(StrEnum):
    live = "live"
    persisted = "persisted"


class UsageContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    used: int | None = Field(None, description="Tokens in the context after the latest turn, as the CLI counts them.")
    window: int | None = Field(None, description="The context window the CLI states; null where it states none.")
    fill: float | None = Field(None, description="used / window, when both are known.")


class AgentUsage(BaseModel):
    """An agent's usage (`agent show --fields usage`): sums over its stored turns; a figure no turn
    reported is null ("unknown"), never 0. The figures are the CLI's own, never a price of Wardian's."""

    model_config = ConfigDict(extra="forbid")

    turns: int = Field(description="Turns (or model calls, where the CLI records each) reported.")
    input_tokens: int | None = Field(description="Input not read from nor written to a cache.")
    output_tokens: int | None = Field(description="Output, reasoning included.")
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None
    cost_usd: float | None = Field(description="The cost the CLI states.")
    last_at: str | None = Field(description="When the latest turn was recorded.")
    model: str | None = Field(description="The latest turn's model.")
    context: UsageContext
    rate_limits: list[dict[str, Any]] = Field(
        description="The latest rate-limit windows reported: name, used_percent, window_minutes, resets_at."
    )


class AgentRecord(BaseModel):
    """An agent as `agent show/list` report it. Its environment is never part of it."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    name: str
    uuid: str
    class_name: str = Field(alias="class")
    provider: str
    workspace: str | None
    status: Status
    pid: int | None = None
    started_at: str | None = None
    last_status_at: str | None = None
    launch_config: dict[str, Any] = Field(
        default_factory=dict,
        description="model, extra_args, include_dirs, session_persistence: what resume and restart launch with.",
    )
    provider_settings: dict[str, Any] | None = Field(
        None,
        description="Provider settings in force at the latest launch: declared defaults, settings.toml, its own.",
    )
    status_source: StatusSource
    host_gone: bool = Field(
        False,
        description="Read from state.db while no host runs, the status says the agent runs: the host that "
        "wrote it is gone, so its status and pid may be stale.",
    )
    description: str | None = None
    created_at: str
    provider_session_id: str | None = None
    is_off: bool
    status_evidence: dict[str, Any] | None = None
    usage: "AgentUsage | None" = Field(
        None, description="What its turns cost, as its CLI recorded them: filled when asked for (`--fields usage`)."
    )
    worktree: str | None = Field(None, description="The id of the git worktree the agent works in, if any.")
    worktree_folder: str | None = Field(None, description="Where in that worktree it works (its launch folder).")
    branch: str | None = Field(None, description="The worktree's branch, the one Wardian made.")
    mcp_tools: McpToolsState | None = Field(
        None,
        description="Whether its CLI has Wardian's MCP tools: `connected` (it listed them), `waiting` (not yet), "
        "`missing` (not within the bound after its prompt), `not_registered`; null when no host says.",
    )
    limit: dict[str, Any] | None = Field(
        None,
        description="The usage limit it waits out (kind, resets_at, source, state, the resume scheduled: "
        "`wardian_core.limits.AgentLimit`); null when it is not limited.",
    )


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    message: str
    hint: str | None = None
    details: dict[str, Any] | None = None


class ErrorEnvelope(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = Field(alias="schema")
    error: ErrorBody


class AgentEnvelope(BaseModel):
    schema_version: int = Field(alias="schema")
    agent: dict[str, Any]


class AgentListEnvelope(BaseModel):
    schema_version: int = Field(alias="schema")
    agents: list[dict[str, Any]]


class Reply(BaseModel):
    """A `wardian reply`, as the host recorded it."""

    model_config = ConfigDict(extra="forbid")

    status: ReplyStatus
    body: str | None = Field(description="The answer's text (None for an output match).")
    source: ReplySource
    at: str = Field(description="When the host recorded it (UTC ISO 8601).")
    caller_pid: int | None = Field(None, description="The replying process, as the kernel reported it.")
    caller_agent: str | None = Field(None, description="The agent the caller was verified as, if any.")


class AskRecord(BaseModel):
    """One `wardian ask` request as state.db keeps it and `ask show` / `ask list` print it."""

    model_config = ConfigDict(extra="forbid")

    request_id: str = Field(pattern=rf"^{REQUEST_ID_PATTERN.pattern}$")
    agent: str = Field(description="The asked agent's name at the time of asking.")
    agent_uuid: str
    status: RequestState
    message: str
    until: str | None = Field(None, description="`output:TOKEN` when the output fallback completes it.")
    asker: str | None = Field(None, description="The asking agent's name; None for a person.")
    asker_verified: bool | None = None
    asker_machine: str | None = Field(
        None, description="The machine an ask came from over ssh; its `asker` is that machine's unverified claim."
    )
    created_at: str
    delivery: dict[str, object] | None = Field(None, description="What typing the question into the agent gave.")
    reply: Reply | None = None
