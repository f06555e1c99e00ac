"""The provider contract: every hook a Wardian plugin may implement.

A provider implements the provider hooks for itself only; the host calls one
provider's implementation at a time, always with keyword arguments, so a spec can
grow an argument without breaking plugins (an implementation takes only the
arguments it uses). Observer hooks are called on every plugin that implements them.
Models come from `wardian_core.provider_models`; implementations are marked with
`from wardian_core import hookimpl`. See docs/providers/writing-a-provider.md.
"""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:  # the screen model (pyte) is imported only by what draws screens
    from wardian_core.parsing.screen import ScreenSnapshot

hookspec = pluggy.HookspecMarker("wardian")

# Hooks answered by the one provider an agent runs with.
PROVIDER_HOOKS = (
    "provider_info",
    "prepare_home",
    "build_argv",
    "resume_args",
    "parse_output",
    "approval_source",
    "parser_state",
    "source_opened",
    "source_quiet",
    "parse_screen",
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
    `ctx.prompt`). A resume launch (`ctx.session_mode == "resume"`) carries in
    `ctx.resume_args` what `resume_args` answered: place exactly those, never a copy of
    your own. `argv[0]` may be the bare executable name of `provider_info`; the host
    resolves it on PATH or through WARDIAN_<NAME>_EXECUTABLE
    (`wardian_host.providers.executables.locate`). Raise
    `WardianError("not_supported", ...)` for a mode the provider does not offer."""


@hookspec
def resume_args(ctx: SpawnContext, session_id: str) -> list[str]:
    """The arguments that make the provider resume `session_id` in `ctx.mode` (e.g.
    `["--resume", session_id]`); an empty list when the provider cannot resume. The host
    decides fresh or resume (relaunch rules, restart, workflows); clone is always fresh."""


@hookspec
def parser_state(source: OutputSource) -> type | None:
    """The class of the parser's memory for `source` (a dataclass or pydantic model
    constructible without arguments), or None for a plain dict. The host creates one per
    agent, launch and source, and passes it as `state` to every parser call of that source."""


@hookspec
def source_opened(ctx: SpawnContext, source: OutputSource, state: Any) -> ParseResult:
    """`source` opened for this launch, before any of its data: a place to note what exists
    already. Optional."""


@hookspec
def parse_output(ctx: SpawnContext, source: OutputSource, data: bytes, state: Any) -> ParseResult:
    """Turn provider output into events (`ProviderEvent`, each with its evidence).

    `source` says where `data` came from: `pty` gives raw terminal bytes in arbitrary
    chunks (a UTF-8 sequence or an escape may be split across calls; see
    `wardian_core.parsing` for the decoder, escape stripper and JSON-lines helpers);
    every other source gives one line (or SSE event, or file name) per call, without its
    newline; `data` is never empty. `ctx` is the launch's current context: it carries the
    provider session id once an event made it known. `state` is this source's parser
    memory (see `parser_state`): keep it there, never in globals. Runs on the host's
    loop: no blocking I/O (name what you need to watch in `approval_source`). Must never
    raise on malformed, truncated or binary input."""


@hookspec
def source_quiet(ctx: SpawnContext, source: OutputSource, state: Any) -> ParseResult:
    """The delay asked for through `ParseResult.call_again_after` passed (quiet-time rules:
    a dialog still open after it settled). Optional."""


@hookspec
def parse_screen(ctx: SpawnContext, source: OutputSource, screen: "ScreenSnapshot", state: Any) -> ParseResult:
    """The agent's screen as a person sees it (rows with their spaces, cursor, title), after
    a parser call asked for it with `ParseResult.want_screen`. TUI rules match here; the
    stream given to `parse_output` only tells when to look. `source` is the PTY. Optional."""


@hookspec
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    """The telemetry to follow besides the PTY: approval requests, turns, session ids
    (a hook's JSONL file, a session log, a directory where session files appear, a local
    server-sent-events URL, a command printing JSON lines). Asked at launch and again
    whenever a `ParseResult` says `sources_changed`; a source still named is kept open,
    one no longer named is closed. Headless runs are asked too. Cheap: no network."""


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
