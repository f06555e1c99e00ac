"""The hooks of the Codex provider; each delegates to a module of its own."""

from typing import Any

from wardian_codex import argv, home, parser
from wardian_codex.profile import INPUT_PROFILE
from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    HomePlan,
    LaunchPlan,
    OutputSource,
    ParseResult,
    ProviderInfo,
    SpawnContext,
)


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
def parse_output(ctx: SpawnContext, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    return parser.parse(ctx, source, data, state)


@hookimpl
def approval_source(ctx: SpawnContext) -> OutputSource | None:
    """The interactive thread's rollout, once its id is known and the file exists."""
    if ctx.mode != "interactive" or not ctx.provider_session_id:
        return None
    rollout = parser.rollout_file(home.agent_codex_home(ctx), ctx.provider_session_id)
    if rollout is None:
        return None
    # A resumed thread's file already holds its earlier turns: the parser skips them.
    name = parser.RESUMED_ROLLOUT_SOURCE if ctx.session_mode == "resume" else parser.ROLLOUT_SOURCE
    return OutputSource(name=name, format="lines", path=rollout)
