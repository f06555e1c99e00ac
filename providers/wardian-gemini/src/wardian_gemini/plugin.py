"""The Gemini provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_core import hookimpl
from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo
from wardian_gemini import argv
from wardian_gemini.argv import build_argv, resume_args
from wardian_gemini.home import prepare as prepare_home
from wardian_gemini.parser import parser_for as parse_output
from wardian_gemini.parser import telemetry_sources as approval_source
from wardian_gemini.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS

__all__ = ["approval_source", "build_argv", "parse_output", "prepare_home", "provider_info", "resume_args"]


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
