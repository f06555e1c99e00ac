"""The generic provider's hooks; each delegates."""

from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    HomePlan,
    LaunchPlan,
    OutputSource,
    ProviderInfo,
    ProviderSetting,
    SpawnContext,
)
from wardian_host.providers.builtin_generic import argv, parser, shell_startup
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
        settings=[
            ProviderSetting(
                name="idle_quiet_seconds",
                type="number",
                description="Seconds without output after which the command counts as idle "
                "(when it has neither shell marks nor a prompt_pattern).",
            ),
            ProviderSetting(
                name="prompt_pattern",
                description="A regular expression matching the last line of the command's prompt: output "
                "after it starts a turn, the prompt ends it; quiet time is then not used.",
            ),
            ProviderSetting(
                name="shell_integration",
                type="boolean",
                default=True,
                description="bash and zsh: extend the shell's start-up (after the user's own) to write "
                "prompt and command marks (OSC 133), so statuses are exact and exit codes are evidence.",
            ),
        ],
    )


@hookimpl
def prepare_home(ctx: SpawnContext) -> HomePlan:
    return shell_startup.write_startup(ctx)


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    return argv.launch_plan(ctx)


@hookimpl
def resume_args() -> list[str]:
    return []  # nothing to resume: a restart runs the same command again


@hookimpl
def parse_output(ctx: SpawnContext, source: OutputSource) -> parser.GenericParser:
    return parser.GenericParser(ctx, source)
