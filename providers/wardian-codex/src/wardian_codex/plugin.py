"""The hooks of the Codex provider; each delegates to a module of its own."""

from wardian_codex import argv, home, parser, sessions, trust, tui
from wardian_codex.profile import INPUT_PROFILE, TESTED_VERSIONS
from wardian_core import hookimpl
from wardian_core.hookspecs import SourceParser
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    HomePlan,
    LaunchPlan,
    OutputSource,
    ProviderEvent,
    ProviderInfo,
    ProviderSetting,
    SpawnContext,
)

# What argv.py (sandbox_mode, approval_policy) and home.py (trust_workspace) read from the launch.
SETTINGS = [
    ProviderSetting(
        name="sandbox_mode",
        choices=["read-only", "workspace-write", "danger-full-access"],
        description="Codex `--sandbox`; unset leaves Codex's own default.",
    ),
    ProviderSetting(
        name="approval_policy",
        choices=["untrusted", "on-failure", "on-request", "never"],
        description="Codex `--ask-for-approval` (`codex exec`: `--config approval_policy=…`); unset leaves "
        "Codex's own default.",
    ),
    ProviderSetting(
        name="trust_workspace",
        type="boolean",
        description="Mark the agent's real workspace as trusted in its Codex home, so Codex does not ask.",
    ),
]


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="codex",
        display_name="Codex CLI",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `npm install -g @openai/codex`",
        instruction_file="AGENTS.md",
        session_id_mode="discovered",
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
    return argv.launch_plan(ctx, {"CODEX_HOME": str(home.agent_codex_home(ctx))})


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return argv.resume_args(session_id)


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    return sessions.telemetry_sources(ctx)


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> SourceParser:
    return parser.parser_for(ctx, source)


@hookimpl
def status_changed(ctx: SpawnContext, event: ProviderEvent | None) -> None:
    """A trust accepted in this agent's Codex is carried to the user's config, for the next agent."""
    if ctx.provider == "codex" and trust.is_trust_accepted(event, tui.TRUST_ANSWERED):
        trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), home.user_codex_home())
