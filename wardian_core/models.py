"""Pydantic models of Wardian's boundary formats.

These define the formats; the CLI's hot read path uses plain data
(`wardian_core.fields`), which tests check against these models.
"""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from wardian_core.statuses import Status


class StatusSource(StrEnum):
    live = "live"
    persisted = "persisted"


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
    description: str | None = None
    created_at: str
    provider_session_id: str | None = None
    is_off: bool
    status_evidence: dict[str, Any] | None = None


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
