"""The hooks of the example provider; each delegates to a module of its own."""

from typing import Any

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
from wardian_example import argv, home, parser
from wardian_example.profile import INPUT_PROFILE


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="example",
        display_name="Example CLI",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `pip install wardian-example-cli`",
        instruction_file="AGENTS.md",
        session_id_mode="discovered",
        capabilities=["interactive", "headless", "resume", "approvals"],
        input_profile=INPUT_PROFILE,
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
def parse_output(source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    return parser.parse(source, data, state)


@hookimpl
def approval_source(ctx: SpawnContext) -> OutputSource | None:
    if not ctx.provider_session_id:
        return None
    path = home.example_home(ctx) / f"approvals-{ctx.provider_session_id}.jsonl"
    return OutputSource(name="approvals", format="lines", path=path)
