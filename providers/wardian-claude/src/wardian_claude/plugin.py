"""The hooks of the Claude Code provider; each delegates to a module of its own."""

from wardian_claude import argv, home, parser
from wardian_claude.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS
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


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="claude",
        display_name="Claude Code",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `npm install -g @anthropic-ai/claude-code`",
        instruction_file="CLAUDE.md",
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
    return argv.launch_plan(ctx)


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return argv.resume_args(session_id)


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    return parser.parser_for(ctx, source)


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []  # headless runs report everything on stdout
    return [OutputSource(name=home.HOOKS_SOURCE_NAME, kind="file", path=home.hooks_file(ctx))]
