"""The provider contract: every hook a Wardian plugin may implement.

A provider implements the provider hooks for itself only; the host calls one
provider's implementation at a time, always with keyword arguments, so a spec can
grow an argument without breaking plugins (an implementation takes only the
arguments it uses). Observer hooks are called on every plugin that implements them.
Models come from `wardian_core.provider_models`; implementations are marked with
`from wardian_core import hookimpl`. See docs/providers/writing-a-provider.md.
"""

from typing import Any

import pluggy

from wardian_core.provider_models import (
    HomePlan,
    LaunchPlan,
    OutputSource,
    ParseResult,
    ProviderEvent,
    ProviderInfo,
    SpawnContext,
)

hookspec = pluggy.HookspecMarker("wardian")

# Hooks answered by the one provider an agent runs with.
PROVIDER_HOOKS = (
    "provider_info",
    "prepare_home",
    "build_argv",
    "resume_args",
    "parse_output",
    "approval_source",
)
# Hooks the host calls on every plugin; a failing observer is reported, never fatal.
OBSERVER_HOOKS = ("agent_spawned", "status_changed", "agent_exited")


@hookspec
def provider_info() -> ProviderInfo:
    """Who this provider is: name (its entry-point name), display name, the contract
    version it implements (`wardian_core.provider_models.CONTRACT_VERSION`), the executable it
    runs, its instruction file, whether its session id is `assigned` up front or
    `discovered` from output, its capabilities and its input profile. Called once when
    plugins load; must not touch the disk or the network."""


@hookspec
def prepare_home(ctx: SpawnContext) -> HomePlan:
    """Project the agent's provider home before a launch: per-agent config under
    `ctx.agent_dir`, generated settings, skill links, instruction roots from
    `ctx.include_roots`. Idempotent. Returns the environment variables to add."""


@hookspec
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    """The process to start for this launch: argv, extra env and cwd, for an
    interactive (`ctx.mode == "interactive"`) or a headless run (`"headless"`, with
    `ctx.prompt`), fresh or resuming `ctx.provider_session_id`
    (`ctx.session_mode == "resume"`). `argv[0]` may be the bare executable name of
    `provider_info`; the host resolves it on PATH or through WARDIAN_<NAME>_EXECUTABLE
    (`wardian_host.providers.executables.locate`). Raise
    `WardianError("not_supported", ...)` for a mode the provider does not offer."""


@hookspec
def resume_args(ctx: SpawnContext, session_id: str) -> list[str]:
    """The arguments that make the provider resume `session_id` (e.g.
    `["--resume", session_id]`); an empty list when the provider cannot resume."""


@hookspec
def parse_output(ctx: SpawnContext, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    """Turn provider output into events (`ProviderEvent`, each with its evidence).

    `source` says where `data` came from: `pty` gives raw terminal bytes in arbitrary
    chunks (a UTF-8 sequence or an escape may be split across calls); `headless` and
    file sources give one line per call, without its newline. `state` is a dict the
    host keeps per agent and source and passes back on every call: keep the parser's
    memory there, never in globals. The host opens every source with one call whose
    `data` is empty, and calls again with empty data when a delay asked for through
    `ParseResult.call_again_after` has passed with nothing new (quiet-time rules).
    Must never raise on malformed, truncated or binary input."""


@hookspec
def approval_source(ctx: SpawnContext) -> OutputSource | None:
    """Where approval requests and other telemetry appear besides the PTY (a JSONL
    file a hook writes, a session log), or None. Called at launch and again once
    `session_started` made the provider session id known, so the answer may name a
    file that only exists from then on."""


@hookspec
def agent_spawned(ctx: SpawnContext, plan: LaunchPlan, pid: int) -> None:
    """Observer: an agent's process started."""


@hookspec
def status_changed(ctx: SpawnContext, previous: str, current: str, event: ProviderEvent | None) -> None:
    """Observer: an agent's status changed; `event` produced it (None when the host
    caused the change, e.g. a kill)."""


@hookspec
def agent_exited(ctx: SpawnContext, exit_code: int | None, caused_by_host: bool) -> None:
    """Observer: an agent's process ended; `caused_by_host` for kill, pause, delete or stop."""
