"""The models of the provider contract: what the host passes to a provider's hooks and
what the hooks answer (see `wardian_host.providers.hookspecs`).

A provider imports these from `wardian_core` (never from `wardian_host`). They are
kept apart from `wardian_core.models` so nothing on the CLI's read path imports them.
"""

import math
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The version of the hook contract in `wardian_host.providers.hookspecs`. A provider declares the
# version it was built for in `ProviderInfo.contract_version`; the host refuses any other.
CONTRACT_VERSION = 1

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
]
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)

# Capabilities the host knows how to use; a provider may declare others for its own tools.
KNOWN_CAPABILITIES = ("interactive", "headless", "resume", "approvals", "model_selection", "skills")


class _Model(BaseModel):
    # Schemas are built on first use: `providers list` validates two of these models, not all.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class InputProfile(_Model):
    """How the host types into this provider's terminal."""

    submit_key: str = Field("\r", description="What submits a prompt once typed.")
    bracketed_paste: bool = Field(True, description="Wrap multi-line or long input in bracketed paste.")
    paste_threshold: int = Field(200, ge=0, description="Single-line input longer than this is pasted too.")
    settle_seconds: float = Field(0.05, ge=0, description="Pause between pasting and the submit key.")
    approve_keys: str | None = Field(None, description="Keys that accept an approval dialog; None: no approvals.")
    reject_keys: str | None = Field(None, description="Keys that refuse an approval dialog.")


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
    launch: LaunchConfig = Field(default_factory=LaunchConfig)

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


class OutputSource(_Model):
    """A named stream of provider output the host feeds to `parse_output`.

    `pty` (raw terminal bytes in arbitrary chunks) and `headless` (stdout of a headless
    run, one line per call) are built in; a provider may name a file the host tails line
    by line (a hook's JSONL, a session log).
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$")
    format: Literal["chunks", "lines"] = "lines"
    path: Path | None = None


PTY_SOURCE = OutputSource(name="pty", format="chunks")
HEADLESS_SOURCE = OutputSource(name="headless", format="lines")


class Evidence(_Model):
    """What produced an event: the source, the parser rule and the line it matched."""

    source: str
    rule: str
    line: str | None = Field(None, max_length=500)


class ProviderEvent(_Model):
    """One event of DESIGN's table; only the host turns events into statuses."""

    kind: EventKind
    evidence: Evidence
    session_id: str | None = None
    message: str | None = None
    # approval_resolved: how the dialog was left, when the provider can tell.
    answer: Literal["accepted", "rejected", "dismissed"] | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class ParseResult(_Model):
    """What `parse_output` answers.

    `call_again_after`: seconds after which the host calls `parse_output` again for the
    same source with empty data, replacing any delayed call pending for it; None leaves a
    pending delayed call in place.
    """

    events: list[ProviderEvent] = Field(default_factory=list)
    call_again_after: float | None = Field(None, ge=0)

    @field_validator("call_again_after")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("call_again_after must be a finite number of seconds")
        return value


def excerpt(text: str, limit: int = 200) -> str:
    """A line short enough to keep as evidence."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
