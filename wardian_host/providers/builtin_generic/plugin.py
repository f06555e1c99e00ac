"""The generic provider's hooks; each delegates."""

from typing import Any

from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    LaunchPlan,
    OutputSource,
    ParseResult,
    ProviderInfo,
    SpawnContext,
)
from wardian_host.providers.builtin_generic import argv, parser
from wardian_host.providers.builtin_generic.profile import INPUT_PROFILE


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="generic",
        display_name="Any interactive command",
        contract_version=CONTRACT_VERSION,
        executable=None,
        instruction_file=None,
        session_id_mode="assigned",
        capabilities=["interactive"],
        input_profile=INPUT_PROFILE,
    )


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    return argv.launch_plan(ctx)


@hookimpl
def resume_args() -> list[str]:
    return []  # nothing to resume: a restart runs the same command again


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource, data: bytes, state: dict[str, Any]) -> ParseResult:
    return parser.parse(ctx, source, data, state)
