"""The generic provider's plugin: its hooks, each marked where its work is done, and who it is
(provider.toml beside this file)."""

from wardian_core import hookimpl
from wardian_core.provider_declaration import declared_provider_info
from wardian_host.providers.builtin_generic.argv import launch_plan as build_argv
from wardian_host.providers.builtin_generic.parser import parse_output
from wardian_host.providers.builtin_generic.profile import INPUT_PROFILE
from wardian_host.providers.builtin_generic.shell_startup import write_startup as prepare_home

__all__ = ["build_argv", "parse_output", "prepare_home", "provider_info", "resume_args"]

# No executable of its own: the user names the command (`--extra-args`).
provider_info = declared_provider_info(__file__, executable=None, input_profile=INPUT_PROFILE)


@hookimpl
def resume_args() -> list[str]:
    return []  # nothing to resume: a restart runs the same command again
