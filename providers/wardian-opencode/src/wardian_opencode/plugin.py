"""The hooks of the OpenCode provider; each delegates to a module of its own."""

from wardian_core import hookimpl
from wardian_core.hookspecs import SourceParser
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    HomePlan,
    LaunchPlan,
    OutputSource,
    ProviderInfo,
    SpawnContext,
)
from wardian_opencode import argv, home, parser, server
from wardian_opencode.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="opencode",
        display_name="OpenCode",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `npm install -g opencode-ai` (a native binary)",
        instruction_file="AGENTS.md",
        session_id_mode="discovered",
        capabilities=["interactive", "headless", "resume", "approvals", "model_selection", "skills"],
        input_profile=INPUT_PROFILE,
        tested_versions=TESTED_VERSIONS,
        settings=SETTINGS,
        # npm's `.cmd`/`.ps1` shims (Windows) and its JavaScript launcher (an install without
        # its postinstall) stand in front of the real binary: launch the binary itself.
        prefer_native_executable=True,
    )


@hookimpl
def prepare_home(ctx: SpawnContext) -> HomePlan:
    return HomePlan(env=home.prepare(ctx) | server.prepare(ctx))


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    return argv.launch_plan(ctx, {})


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return argv.resume_args(session_id)


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    return parser.telemetry_sources(ctx)


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser | None:
    return parser.parser_for(ctx, source)
