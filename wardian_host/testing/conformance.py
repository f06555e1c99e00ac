"""Conformance checks a provider package runs on itself, from its own tests.

Subclass the test class (pytest collects it under your name):

    from wardian_host.testing.conformance import ProviderConformance

    class TestConformance(ProviderConformance):
        provider = "example"            # your entry-point name
        launch = LaunchConfig()         # optional: what a launch of yours needs

or call `run_conformance("example")` from any test. The provider is loaded through
its installed entry point, alone (`WARDIAN_PLUGINS=<provider>`), exactly as the host
would load it. The checks: the plugin loads and its hooks validate; `provider_info`
is complete; `build_argv` answers a list of strings for fresh, resume and headless
launches (or `not_supported` for one the provider does not declare); the other hooks
answer their declared types; `parse_output` never raises on random bytes, truncated
UTF-8, truncated or odd JSON lines and cut escape sequences, and emits only the
declared events, each naming the source it came from.
"""

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from wardian_core.errors import WardianError
from wardian_core.provider_models import (
    EVENT_KINDS,
    HEADLESS_SOURCE,
    PTY_SOURCE,
    LaunchConfig,
    LaunchPlan,
    OutputSource,
    ParseResult,
    SpawnContext,
)
from wardian_host.providers.manager import Plugins, load_plugins

CONFORMANCE_AGENT_UUID = "00000000-0000-4000-8000-00000000c0de"
CONFORMANCE_SESSION_ID = "conformance-session-0001"


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
    if "approvals" in info.capabilities and not (info.input_profile.approve_keys and info.input_profile.reject_keys):
        problems.append("declares `approvals` but input_profile lacks approve_keys or reject_keys")
    if info.executable is not None and not info.executable.strip():
        problems.append("provider_info.executable is an empty string (use None when the user supplies it)")
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
        )
        try:
            plan = plugins.call(provider, "build_argv", ctx=ctx)
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
        "prepare_home": lambda: plugins.call(provider, "prepare_home", ctx=ctx),
        "prepare_home (again: must be idempotent)": lambda: plugins.call(provider, "prepare_home", ctx=ctx),
        "resume_args": lambda: plugins.call(provider, "resume_args", ctx=ctx, session_id=CONFORMANCE_SESSION_ID),
        "approval_source": lambda: plugins.call(provider, "approval_source", ctx=ctx),
        "approval_source (session unknown)": lambda: plugins.call(
            provider, "approval_source", ctx=ctx.model_copy(update={"provider_session_id": None})
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
    try:
        announced = plugins.call(provider, "approval_source", ctx=ctx)
    except WardianError:
        announced = None  # reported by check_other_hooks
    if announced is not None and announced.name not in ("pty", "headless"):
        sources.append(announced)
    return sources


def _check_result(result: ParseResult, source: OutputSource, what: str) -> list[str]:
    problems = []
    for event in result.events:
        if event.kind not in EVENT_KINDS:
            problems.append(f"{what}: event kind {event.kind!r} is not one of {EVENT_KINDS}")
        if event.evidence.source != source.name:
            problems.append(f"{what}: event evidence names source {event.evidence.source!r}, not {source.name!r}")
    return problems


def check_parse_output(plugins: Plugins, provider: str, workdir: Path, launch: LaunchConfig | None = None) -> list[str]:
    problems: list[str] = []
    ctx = conformance_context(provider, workdir, launch=launch, provider_session_id=CONFORMANCE_SESSION_ID)
    inputs = malformed_inputs()
    for source in _sources(plugins, provider, ctx):
        state: dict[str, Any] = {}
        feed = [b""] + inputs + [b""]
        if source.format == "chunks":
            # The same bytes again, cut at odd places, as a PTY read may cut them.
            joined = b"".join(inputs[:30])
            feed += [joined[i : i + 7] for i in range(0, len(joined), 7)] + [b""]
        for index, data in enumerate(feed):
            what = f"parse_output({source.name}, input #{index}: {data[:40]!r})"
            try:
                result = plugins.call(provider, "parse_output", ctx=ctx, source=source, data=data, state=state)
            except WardianError as error:
                problems.append(f"{what}: {error.code}: {error.message}")
                break  # one failure per source says enough
            problems += _check_result(result, source, what)
    return problems


CHECKS = (check_provider_info, check_build_argv, check_other_hooks, check_parse_output)


def run_conformance(provider: str, workdir: Path, launch: LaunchConfig | None = None) -> None:
    """Every check on `provider`; raises AssertionError listing every problem found."""
    plugins = load_provider(provider)
    problems = check_loads(plugins, provider)
    if not problems:
        problems += check_provider_info(plugins, provider)
        for check in CHECKS[1:]:
            problems += check(plugins, provider, workdir, launch)
    if problems:
        raise AssertionError(f"provider {provider!r} does not conform:\n- " + "\n- ".join(problems))


class ProviderConformance:
    """Subclass as `TestConformance` with `provider` (and `launch`) set."""

    provider: ClassVar[str] = ""
    launch: ClassVar[LaunchConfig | None] = None

    @pytest.fixture
    def conformance_plugins(self) -> Plugins:
        assert self.provider, "set `provider` to your entry-point name"
        return load_provider(self.provider)

    def test_plugin_loads_and_hooks_validate(self, conformance_plugins: Plugins) -> None:
        assert check_loads(conformance_plugins, self.provider) == []

    def test_provider_info_is_complete(self, conformance_plugins: Plugins) -> None:
        assert check_provider_info(conformance_plugins, self.provider) == []

    def test_build_argv_answers_fresh_resume_and_headless(self, conformance_plugins: Plugins, tmp_path: Path) -> None:
        assert check_build_argv(conformance_plugins, self.provider, tmp_path, self.launch) == []

    def test_other_hooks_answer_their_declared_types(self, conformance_plugins: Plugins, tmp_path: Path) -> None:
        assert check_other_hooks(conformance_plugins, self.provider, tmp_path, self.launch) == []

    def test_parse_output_survives_malformed_input(self, conformance_plugins: Plugins, tmp_path: Path) -> None:
        assert check_parse_output(conformance_plugins, self.provider, tmp_path, self.launch) == []
