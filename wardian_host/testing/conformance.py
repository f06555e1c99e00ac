"""Conformance checks a provider package runs on itself, from its own tests.

Subclass the test class (pytest collects it under your name):

    from wardian_host.testing.conformance import ProviderConformance

    class TestConformance(ProviderConformance):
        provider = "example"            # your entry-point name
        launch = LaunchConfig()         # optional: what a launch of yours needs

or call `run_conformance("example")` from any test. The provider is loaded through
its installed entry point, alone (`WARDIAN_PLUGINS=<provider>`), exactly as the host
would load it. The checks: the plugin loads and its hooks validate; `provider_info`
is complete (tested CLI versions, keys for the dialogs of an `approvals` provider);
`build_argv` answers a list of strings for fresh, resume and headless launches (or
`not_supported` for one the provider does not declare), and a resume launch carries
exactly the `ctx.resume_args` the host hands it, never a copy of the provider's own;
the other hooks answer their declared types; `parse_output` answers each source a
parser of its own (two launches never share one); the parser's calls (opened, feed,
quiet, screen) never raise on random bytes, truncated UTF-8, truncated or odd JSON lines, cut escape
sequences and garbled screens, and emit only declared events, each naming the source
it came from, every dialog one the input profile can answer.
"""

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from wardian_core.errors import WardianError
from wardian_core.parsing.screen import ScreenModel, ScreenSnapshot
from wardian_core.provider_models import (
    EVENT_KINDS,
    HEADLESS_SOURCE,
    PTY_SOURCE,
    LaunchConfig,
    LaunchPlan,
    OutputSource,
    ParseResult,
    ProviderInfo,
    SpawnContext,
)
from wardian_host.providers.manager import Plugins, load_plugins
from wardian_host.providers.source_parser import SourceParser

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _plain(function: _Function) -> _Function:
    return function


try:
    import pytest

    # pytest.fixture is overloaded; here it is only ever a bare decorator.
    _fixture: Callable[[_Function], _Function] = pytest.fixture  # type: ignore[assignment]
except ImportError:  # `wardian providers check` runs these checks where pytest is not installed
    _fixture = _plain

CONFORMANCE_AGENT_UUID = "00000000-0000-4000-8000-00000000c0de"
CONFORMANCE_SESSION_ID = "conformance-session-0001"
# What the conformance suite hands build_argv as `ctx.resume_args`: a provider that places
# its own resume flags instead of these is caught.
RESUME_SENTINEL = ["--conformance-resume", CONFORMANCE_SESSION_ID]


def malformed_inputs(seed: int = 3) -> list[bytes]:
    """Input no parser may raise on; deterministic, so a failure reproduces."""
    rng = random.Random(seed)
    inputs = [
        b"\xe2\x82",  # "€" cut after two of its three bytes
        b"\xac plain text after a cut character",
        "señal ✓ ünïcödé".encode()[:-1],
        b"\xff\xfe\x00\x00 not utf-8",
        b"\x00" * 64,
        b'{"type": "turn.st',
        b'{"type":',
        b"{",
        b"[",
        b"}",
        b"null",
        b"123",
        b'"a string"',
        b"[1, 2, 3]",
        b"{}",
        b'{"type": null, "session_id": 7, "message": ["x"]}',
        b'{"type": {"nested": {"deeper": []}}}',
        b'{"type": "session.started", "session_id": 123}',
        b'{"type": "error", "message": null}',
        b'{"sessionID": null, "event": 5, "hook_event_name": []}',
        b"{" * 2000,
        b"\x1b[",
        b"\x1b[38;5;",
        b"\x1b]0;window title without end",
        b"\r\r\n\n\t\x07\x08\x7f",
        b"x" * 100_000,
    ]
    inputs += [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 512))) for _ in range(40)]
    return inputs


def conformance_context(
    provider: str,
    workdir: Path,
    *,
    mode: Literal["interactive", "headless"] = "interactive",
    session_mode: Literal["fresh", "resume"] = "fresh",
    launch: LaunchConfig | None = None,
    provider_session_id: str | None = None,
    resume_args: list[str] | None = None,
) -> SpawnContext:
    home = workdir / "wardian-home"
    agent_dir = home / "agents" / CONFORMANCE_AGENT_UUID
    workspace = workdir / "workspace"
    common = home / "common"
    for directory in (agent_dir, workspace, common):
        directory.mkdir(parents=True, exist_ok=True)
    return SpawnContext(
        agent_uuid=CONFORMANCE_AGENT_UUID,
        agent_name="conformance",
        class_name="Conformance",
        provider=provider,
        workspace=workspace,
        include_roots=[common, agent_dir],
        wardian_home=home,
        agent_dir=agent_dir,
        mode=mode,
        session_mode=session_mode,
        provider_session_id=provider_session_id,
        prompt="Say hello." if mode == "headless" else None,
        resume_args=resume_args or [],
        launch=launch or LaunchConfig(),
    )


def load_provider(provider: str) -> Plugins:
    """The provider alone, loaded through its installed entry point."""
    return load_plugins({"WARDIAN_PLUGINS": provider})


def check_loads(plugins: Plugins, provider: str) -> list[str]:
    problems = [f"does not load ({f.stage}): {f.error}" for f in plugins.failures if f.name == provider]
    if not problems and provider not in plugins.provider_names():
        problems.append(f"no provider named {provider!r} in the entry-point group 'wardian'")
    return problems


def check_provider_info(plugins: Plugins, provider: str) -> list[str]:
    info = plugins.info(provider)
    problems = []
    if not info.display_name.strip():
        problems.append("provider_info.display_name is empty")
    if not info.capabilities:
        problems.append("provider_info.capabilities is empty (declare at least `interactive` or `headless`)")
    if not info.input_profile.submit_key:
        problems.append("input_profile.submit_key is empty")
    answerable = [keys for keys in info.input_profile.dialogs.values() if keys.accept and keys.reject]
    if "approvals" in info.capabilities and not answerable:
        problems.append("declares `approvals` but input_profile.dialogs has no dialog with accept and reject keys")
    if info.executable is not None and not info.executable.strip():
        problems.append("provider_info.executable is an empty string (use None when the user supplies it)")
    if info.executable is not None and info.tested_versions is None:
        problems.append("provider_info.tested_versions is missing: name the oldest and newest CLI versions tested")
    names = [setting.name for setting in info.settings]
    if len(names) != len(set(names)):
        problems.append(f"provider_info.settings names a setting twice: {names}")
    return problems


def _contains(argv: list[str], part: list[str]) -> int:
    """How many times `part` appears in `argv` as consecutive arguments."""
    return sum(argv[i : i + len(part)] == part for i in range(len(argv) - len(part) + 1)) if part else 0


def _resume_problems(plugins: Plugins, provider: str, ctx: SpawnContext, mode: str, resumes: bool) -> list[str]:
    own = plugins.resume_args(provider, ctx=ctx, session_id=CONFORMANCE_SESSION_ID)
    if not own:  # the host never resumes it: a relaunch is fresh
        return [f"declares `resume` but resume_args answered nothing for a {mode} launch"] if resumes else []
    problems = []
    for handed, label in ((own, "its resume_args"), (RESUME_SENTINEL, "the host's ctx.resume_args")):
        argv = plugins.build_argv(provider, ctx=ctx.model_copy(update={"resume_args": handed})).argv
        if _contains(argv, handed) != 1:
            problems.append(f"a {mode} resume launch given {label} {handed} does not carry them once: {argv}")
        elif handed is RESUME_SENTINEL and _contains(argv, own):
            problems.append(f"a {mode} resume launch adds its own resume arguments {own}: {argv}")
    return problems


def check_resume_launch(
    plugins: Plugins, provider: str, workdir: Path, launch: LaunchConfig | None = None
) -> list[str]:
    """A resume launch carries exactly what the host hands over, and nothing of the provider's own."""
    info = plugins.info(provider)
    problems = []
    modes: tuple[Literal["interactive", "headless"], ...] = ("interactive", "headless")
    for mode in modes:
        if mode not in info.capabilities:
            continue
        ctx = conformance_context(
            provider,
            workdir,
            mode=mode,
            session_mode="resume",
            launch=launch,
            provider_session_id=CONFORMANCE_SESSION_ID,
        )
        try:
            problems += _resume_problems(plugins, provider, ctx, mode, "resume" in info.capabilities)
        except WardianError as error:
            problems.append(f"a {mode} resume launch: {error.code}: {error.message}")
    return problems


def check_build_argv(plugins: Plugins, provider: str, workdir: Path, launch: LaunchConfig | None = None) -> list[str]:
    capabilities = plugins.info(provider).capabilities
    cases: dict[str, tuple[Literal["interactive", "headless"], Literal["fresh", "resume"], str]] = {
        "fresh interactive": ("interactive", "fresh", "interactive"),
        "resumed interactive": ("interactive", "resume", "resume"),
        "headless": ("headless", "fresh", "headless"),
    }
    problems = []
    for label, (mode, session_mode, capability) in cases.items():
        ctx = conformance_context(
            provider,
            workdir,
            mode=mode,
            session_mode=session_mode,
            launch=launch,
            provider_session_id=CONFORMANCE_SESSION_ID if session_mode == "resume" else None,
            resume_args=RESUME_SENTINEL if session_mode == "resume" else None,
        )
        try:
            plan = plugins.build_argv(provider, ctx=ctx)
        except WardianError as error:
            if error.code == "not_supported" and capability not in capabilities:
                continue
            problems.append(f"build_argv for a {label} launch: {error.code}: {error.message}")
            continue
        if not isinstance(plan, LaunchPlan) or not all(isinstance(arg, str) and arg for arg in plan.argv):
            problems.append(f"build_argv for a {label} launch: argv must be non-empty strings, got {plan!r}")
    return problems


def check_other_hooks(plugins: Plugins, provider: str, workdir: Path, launch: LaunchConfig | None = None) -> list[str]:
    problems = []
    ctx = conformance_context(provider, workdir, launch=launch, provider_session_id=CONFORMANCE_SESSION_ID)
    calls: dict[str, Callable[[], Any]] = {
        "prepare_home": lambda: plugins.prepare_home(provider, ctx=ctx),
        "prepare_home (again: must be idempotent)": lambda: plugins.prepare_home(provider, ctx=ctx),
        "resume_args": lambda: plugins.resume_args(provider, ctx=ctx, session_id=CONFORMANCE_SESSION_ID),
        "approval_source": lambda: plugins.approval_source(provider, ctx=ctx),
        "approval_source (session unknown)": lambda: plugins.approval_source(
            provider, ctx=ctx.model_copy(update={"provider_session_id": None})
        ),
    }
    answers = {}
    for label, call in calls.items():
        try:
            answers[label] = call()
        except WardianError as error:
            problems.append(f"{label}: {error.code}: {error.message}")
    first, again = answers.get("prepare_home"), answers.get("prepare_home (again: must be idempotent)")
    if first is not None and again is not None and first != again:
        problems.append(f"prepare_home answered {first!r}, then {again!r} for the same launch")
    return problems


def _sources(plugins: Plugins, provider: str, ctx: SpawnContext) -> list[OutputSource]:
    sources = [PTY_SOURCE, HEADLESS_SOURCE]
    for session_id in (None, ctx.provider_session_id):
        try:
            announced = plugins.approval_source(
                provider, ctx=ctx.model_copy(update={"provider_session_id": session_id})
            )
        except WardianError:
            announced = []  # reported by check_other_hooks
        sources += [source for source in announced if source.identity not in {s.identity for s in sources}]
    return sources


def _check_result(result: ParseResult, source: OutputSource, info: ProviderInfo, what: str) -> list[str]:
    problems = []
    for event in result.events:
        if event.kind not in EVENT_KINDS:
            problems.append(f"{what}: event kind {event.kind!r} is not one of {EVENT_KINDS}")
        if event.evidence.source != source.name:
            problems.append(f"{what}: event evidence names source {event.evidence.source!r}, not {source.name!r}")
        if event.dialog is not None and event.dialog not in info.input_profile.dialogs:
            problems.append(f"{what}: dialog {event.dialog!r} has no keys in input_profile.dialogs")
    return problems


def _garbled_screens() -> list[ScreenSnapshot]:
    model = ScreenModel()
    model.feed(b"".join(malformed_inputs()[:25]))
    empty = ScreenSnapshot(rows=[], cursor={"row": 0, "col": 0}, title="", size={"rows": 0, "cols": 0})
    return [ScreenModel().snapshot(), model.snapshot(), empty]


def _parser_calls(parser: SourceParser, ctx: SpawnContext) -> list[tuple[str, Callable[[], ParseResult]]]:
    calls: list[tuple[str, Callable[[], ParseResult]]] = [("opened", lambda: parser.opened(ctx))]
    inputs = malformed_inputs()
    if parser.source.format == "chunks":
        # The same bytes again, cut at odd places, as a PTY read may cut them.
        joined = b"".join(inputs[:30])
        inputs += [joined[i : i + 7] for i in range(0, len(joined), 7)]
    for index, data in enumerate(inputs):
        calls.append((f"feed(input #{index}: {data[:40]!r})", functools.partial(parser.parse, ctx, data)))
        if index % 10 == 0:
            calls.append(("quiet", lambda: parser.quiet(ctx)))
    if parser.source.format == "chunks":
        calls += [("screen", functools.partial(parser.screen, ctx, screen)) for screen in _garbled_screens()]
    return [*calls, ("quiet", lambda: parser.quiet(ctx))]


def check_parse_output(plugins: Plugins, provider: str, workdir: Path, launch: LaunchConfig | None = None) -> list[str]:
    problems: list[str] = []
    info = plugins.info(provider)
    ctx = conformance_context(provider, workdir, launch=launch, provider_session_id=CONFORMANCE_SESSION_ID)
    for source in _sources(plugins, provider, ctx):
        parser = _started_parser(plugins, provider, source, ctx, problems)
        if parser is None:
            continue
        for label, call in _parser_calls(parser, ctx):
            what = f"{label} on {source.name}"
            try:
                result = call()
            except WardianError as error:
                problems.append(f"{what}: {error.code}: {error.message}")
                break  # one failure per source says enough
            problems += _check_result(result, source, info, what)
        other = _started_parser(plugins, provider, source, ctx, [])
        if parser.parser is not None and other is not None and other.parser is parser.parser:
            problems.append(f"parse_output({source.name}): two launches share one parser")
    return problems


def _started_parser(
    plugins: Plugins, provider: str, source: OutputSource, ctx: SpawnContext, problems: list[str]
) -> SourceParser | None:
    parser = SourceParser(plugins, provider, source)
    try:
        parser.start(ctx)
    except WardianError as error:
        problems.append(f"parse_output({source.name}): {error.message}")
        return None
    return parser


CHECKS = (check_provider_info, check_build_argv, check_resume_launch, check_other_hooks, check_parse_output)


def conformance_problems(
    provider: str, workdir: Path, launch: LaunchConfig | None = None, plugins: Plugins | None = None
) -> dict[str, list[str]]:
    """Each check's name and the problems it found in `provider` (none: it conforms)."""
    plugins = plugins or load_provider(provider)
    found = {"loads": check_loads(plugins, provider)}
    if not found["loads"]:
        found[check_provider_info.__name__] = check_provider_info(plugins, provider)
        for check in CHECKS[1:]:
            found[check.__name__] = check(plugins, provider, workdir, launch)
    return found


def run_conformance(
    provider: str, workdir: Path, launch: LaunchConfig | None = None, plugins: Plugins | None = None
) -> None:
    """Every check on `provider`; raises AssertionError listing every problem found.

    `plugins`: where `provider` is registered already (`Plugins.register`, a test's plugin
    object); by default it is loaded alone through its installed entry point."""
    problems = [each for found in conformance_problems(provider, workdir, launch, plugins).values() for each in found]
    if problems:
        raise AssertionError(f"provider {provider!r} does not conform:\n- " + "\n- ".join(problems))


class ProviderConformance:
    """Subclass as `TestConformance` with `provider` (and `launch`) set."""

    provider: ClassVar[str] = ""
    launch: ClassVar[LaunchConfig | None] = None

    @_fixture
    def conformance_plugins(self) -> Plugins:
        assert self.provider, "set `provider` to your entry-point name"
        return load_provider(self.provider)

    def test_plugin_loads_and_hooks_validate(self, conformance_plugins: Plugins) -> None:
        assert check_loads(conformance_plugins, self.provider) == []

    def test_provider_info_is_complete(self, conformance_plugins: Plugins) -> None:
        assert check_provider_info(conformance_plugins, self.provider) == []

    def test_build_argv_answers_fresh_resume_and_headless(self, conformance_plugins: Plugins, tmp_path: Path) -> None:
        assert check_build_argv(conformance_plugins, self.provider, tmp_path, self.launch) == []

    def test_a_resume_launch_carries_exactly_the_hosts_resume_args(
        self, conformance_plugins: Plugins, tmp_path: Path
    ) -> None:
        assert check_resume_launch(conformance_plugins, self.provider, tmp_path, self.launch) == []

    def test_other_hooks_answer_their_declared_types(self, conformance_plugins: Plugins, tmp_path: Path) -> None:
        assert check_other_hooks(conformance_plugins, self.provider, tmp_path, self.launch) == []

    def test_parsers_keep_typed_state_and_survive_malformed_input(
        self, conformance_plugins: Plugins, tmp_path: Path
    ) -> None:
        assert check_parse_output(conformance_plugins, self.provider, tmp_path, self.launch) == []
