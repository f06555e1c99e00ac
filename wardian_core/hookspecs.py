"""The provider contract: every hook a Wardian plugin may implement, and the parser it answers.

A provider implements the provider hooks for itself only; the host calls one
provider's implementation at a time, always with keyword arguments, so a spec can
grow an argument without breaking plugins (an implementation takes only the
arguments it uses). Observer hooks are called on every plugin that implements them.
Everything a provider needs is in `wardian_core`: these specs, `hookimpl`
(`from wardian_core import hookimpl`), the models (`wardian_core.provider_models`) and
the parsing kit (`wardian_core.parsing`). See docs/providers/writing-a-provider.md.

The host's tables (which hooks exist, which a provider must implement, what each
answers and what is assumed when one is left out) are read from the specs below:
`PROVIDER_HOOKS` and `REQUIRED_HOOKS` are filled by `_provider_hook`, the answer type is
the spec's return annotation.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import pluggy

from wardian_core.notices import Notice
from wardian_core.provider_models import (
    HomePlan,
    LaunchPlan,
    LimitReport,
    LimitResume,
    OutputSource,
    ParseResult,
    ProviderEvent,
    ProviderInfo,
    SpawnContext,
)

if TYPE_CHECKING:  # the screen model (pyte) is imported only by what draws screens
    from wardian_core.parsing.screen import ScreenSnapshot

hookspec = pluggy.HookspecMarker("wardian")

# Hooks answered by the one provider an agent runs with, in the order a launch asks them.
PROVIDER_HOOKS: list[str] = []
# Of those, the ones a provider must implement; the others have a default answer.
REQUIRED_HOOKS: set[str] = set()
# Hooks the host calls on every plugin; a failing observer is reported, never fatal.
OBSERVER_HOOKS: list[str] = []

_Spec = TypeVar("_Spec", bound=Callable[..., Any])


def _provider_hook(*, required: bool = False) -> Callable[[_Spec], _Spec]:
    def mark(spec: _Spec) -> _Spec:
        PROVIDER_HOOKS.append(spec.__name__)
        if required:
            REQUIRED_HOOKS.add(spec.__name__)
        return hookspec(spec)

    return mark


def _observer_hook(spec: _Spec) -> _Spec:
    OBSERVER_HOOKS.append(spec.__name__)
    return hookspec(spec)


@runtime_checkable
class SourceParser(Protocol):
    """One source's parser for one launch, answered by `parse_output`; it keeps its own memory.

    Only `feed` is required; `opened`, `quiet`, `screen` and `caught_up` are called when present (a
    parser without them answers nothing there). Every method answers a `ParseResult`. A
    parser may raise on input it cannot read: the host catches it, logs it, counts it
    against the provider (`wardian providers show`) and goes on with the next data.
    Methods run on the host's loop: no blocking I/O.
    """

    def feed(self, data: bytes) -> ParseResult:
        """Turn provider output into events (`ProviderEvent`, each with its evidence).

        A `chunks` source (the PTY) gives raw terminal bytes in arbitrary chunks (a UTF-8
        sequence or an escape may be split across calls; see `wardian_core.parsing` for the
        decoder, escape stripper and JSON-lines helpers); every other source gives one line
        (or SSE event, or file name) per call, without its newline. `data` is never empty.
        """
        ...


class OpensSource(Protocol):
    def opened(self) -> ParseResult:
        """The source opened for this launch, before any of its data: a place to note what
        exists already."""
        ...


class GoesQuiet(Protocol):
    def quiet(self) -> ParseResult:
        """The delay asked for through `ParseResult.call_again_after` passed (quiet-time
        rules: a dialog still open after it settled)."""
        ...


class CatchesUp(Protocol):
    def caught_up(self) -> ParseResult:
        """The launch was adopted (a new host took over its terminal after a restart or a
        crash): the output the previous host parsed was fed again, its events dropped, and
        what follows is new. The command's start is long past: a rule that counts time from
        the launch (quiet time) starts counting here."""
        ...


class LooksAtScreens(Protocol):
    def screen(self, snapshot: "ScreenSnapshot") -> ParseResult:
        """The agent's screen as a person sees it (rows with their spaces, cursor, title),
        after a call asked for it with `ParseResult.want_screen`. TUI rules match here; the
        bytes given to `feed` only tell when to look."""
        ...


@_provider_hook(required=True)
def provider_info() -> ProviderInfo:
    """Who this provider is: name (its entry-point name), display name, the contract
    version it implements (`wardian_core.provider_models.CONTRACT_VERSION`), the executable it
    runs, its instruction file, whether its session id is `assigned` up front or
    `discovered` from output, its capabilities and its input profile. Called once when
    plugins load; must not touch the disk or the network."""


@_provider_hook()
def prepare_home(ctx: SpawnContext) -> HomePlan:
    """Project the agent's provider home before a launch: per-agent config under
    `ctx.agent_dir`, generated settings, skill links, instruction roots from
    `ctx.include_roots`. Idempotent. Returns the environment variables to add."""


@_provider_hook(required=True)
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    """The process to start for this launch: argv, extra env and cwd, for an
    interactive (`ctx.mode == "interactive"`) or a headless run (`"headless"`, with
    `ctx.prompt`). A resume launch (`ctx.session_mode == "resume"`) carries in
    `ctx.resume_args` what `resume_args` answered: place exactly those, never a copy of
    your own. `argv[0]` may be the bare executable name of `provider_info`; the host
    resolves it on PATH or through WARDIAN_<NAME>_EXECUTABLE
    (`wardian_host.providers.executables.locate`). Raise
    `WardianError("not_supported", ...)` for a mode the provider does not offer."""


@_provider_hook()
def resume_args(ctx: SpawnContext, session_id: str) -> list[str]:
    """The arguments that make the provider resume `session_id` in `ctx.mode` (e.g.
    `["--resume", session_id]`); an empty list when the provider cannot resume. The host
    decides fresh or resume (relaunch rules, restart, workflows); clone is always fresh."""


@_provider_hook()
def limit_resume(ctx: SpawnContext, limit: LimitReport) -> LimitResume:
    """How this CLI continues the turn `limit` cut, once it reset (see `LimitResume`): the keys
    that leave what the CLI opened when the limit hit without taking its offer (upgrade, switch
    the model), then the text that continues; a relaunch with the session resumed; or `wait`
    where the CLI retries by itself. Left out: the text `continue`, typed as a prompt."""


@_provider_hook()
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    """Every telemetry source to follow besides the PTY, not only approvals: approval
    requests, turns, session ids (a hook's JSONL file, a session log, a directory where
    session files appear, a local server-sent-events URL, a command printing JSON lines).
    Asked at launch and again whenever a `ParseResult` says `sources_changed`; a source
    still named is kept open, one no longer named is closed. Headless runs are asked too.
    Cheap: no network."""


@_provider_hook()
def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser | None:
    """The parser of `source` for this launch (see `SourceParser`): the PTY (`pty_source`,
    format `chunks`), a headless run's stdout (`headless`) or one of the telemetry sources
    `approval_source` named. Asked once per launch and source; the parser keeps its memory
    itself, never in globals. `ctx` is the launch's context and stays current: its
    `provider_session_id` is set in place once an event made it known, so a parser may keep
    it. None: the source says nothing this provider reads."""


@_observer_hook
def agent_spawned(ctx: SpawnContext, plan: LaunchPlan, pid: int) -> None:
    """Observer: an agent's process started."""


@_observer_hook
def status_changed(ctx: SpawnContext, previous: str, current: str, event: ProviderEvent | None) -> None:
    """Observer: an agent's status changed; `event` produced it (None when the host
    caused the change, e.g. a kill)."""


@_observer_hook
def notice_raised(notice: Notice) -> None:
    """Observer: an agent needs a person (waiting on a dialog, ended in error, a turn nobody
    looked at), once per occurrence, as the web view and the settings' sinks are told; also
    each `wardian notify test`."""


@_observer_hook
def agent_exited(ctx: SpawnContext, exit_code: int | None, caused_by_host: bool) -> None:
    """Observer: an agent's process ended; `caused_by_host` for kill, pause, delete or stop."""
