"""The Codex provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_codex import argv, home, trust, tui
from wardian_codex.argv import build_argv, resume_args
from wardian_codex.home import prepare as prepare_home
from wardian_codex.parser import parser_for as parse_output
from wardian_codex.profile import INPUT_PROFILE, TESTED_VERSIONS
from wardian_codex.sessions import telemetry_sources as approval_source
from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    ProviderEvent,
    ProviderInfo,
    ProviderSetting,
    SpawnContext,
)

__all__ = [
    "approval_source",
    "build_argv",
    "parse_output",
    "prepare_home",
    "provider_info",
    "resume_args",
    "status_changed",
]

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
def status_changed(ctx: SpawnContext, event: ProviderEvent | None) -> None:
    """A trust accepted in this agent's Codex is carried to the user's config, for the next agent."""
    if ctx.provider == "codex" and trust.is_trust_accepted(event, tui.TRUST_ANSWERED):
        trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), home.user_codex_home())
