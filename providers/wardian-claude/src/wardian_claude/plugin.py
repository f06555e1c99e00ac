"""The Claude Code provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_claude import argv
from wardian_claude.argv import launch_plan as build_argv
from wardian_claude.argv import resume_args
from wardian_claude.home import prepare as prepare_home
from wardian_claude.home import telemetry_sources as approval_source
from wardian_claude.parser import parser_for as parse_output
from wardian_claude.profile import INPUT_PROFILE, SETTINGS, TESTED_VERSIONS
from wardian_core import hookimpl
from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo

__all__ = ["approval_source", "build_argv", "parse_output", "prepare_home", "provider_info", "resume_args"]


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
