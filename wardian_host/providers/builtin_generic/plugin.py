"""The generic provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    ProviderInfo,
    ProviderSetting,
)
from wardian_host.providers.builtin_generic.argv import launch_plan as build_argv
from wardian_host.providers.builtin_generic.parser import parse_output
from wardian_host.providers.builtin_generic.profile import INPUT_PROFILE
from wardian_host.providers.builtin_generic.shell_startup import write_startup as prepare_home

__all__ = ["build_argv", "parse_output", "prepare_home", "provider_info", "resume_args"]


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
def resume_args() -> list[str]:
    return []  # nothing to resume: a restart runs the same command again
