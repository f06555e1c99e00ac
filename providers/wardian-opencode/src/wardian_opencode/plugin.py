"""The OpenCode provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_core import hookimpl
from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo
from wardian_opencode import argv
from wardian_opencode.argv import build_argv, resume_args
from wardian_opencode.home import prepare_home
from wardian_opencode.parser import parser_for as parse_output
from wardian_opencode.parser import telemetry_sources as approval_source
from wardian_opencode.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS

__all__ = ["approval_source", "build_argv", "parse_output", "prepare_home", "provider_info", "resume_args"]


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
