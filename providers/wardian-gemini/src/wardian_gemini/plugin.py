"""The hooks of the Gemini provider; each delegates to a module of its own."""

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
from wardian_gemini import argv, home, parser
from wardian_gemini.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="gemini",
        display_name="Gemini CLI",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `npm install -g @google/gemini-cli`",
        instruction_file="GEMINI.md",
        session_id_mode="assigned",
        capabilities=["interactive", "headless", "resume", "approvals", "model_selection", "skills"],
        input_profile=INPUT_PROFILE,
        tested_versions=TESTED_VERSIONS,
        settings=SETTINGS,
    )


@hookimpl
def prepare_home(ctx: SpawnContext) -> HomePlan:
    return home.prepare(ctx)


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    return argv.launch_plan(ctx, {"GEMINI_CLI_HOME": str(home.agent_home(ctx))})


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return argv.resume_args(session_id)


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    return parser.telemetry_sources(ctx)


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    return parser.parser_for(ctx, source)
