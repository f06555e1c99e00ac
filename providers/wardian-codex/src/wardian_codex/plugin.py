"""The Codex provider's plugin: its hooks, each marked where its work is done, and who it is
(provider.toml beside this file)."""

from wardian_codex import argv, home, trust, tui
from wardian_codex.argv import build_argv, resume_args
from wardian_codex.home import prepare as prepare_home
from wardian_codex.limits import limit_resume
from wardian_codex.parser import parser_for as parse_output
from wardian_codex.profile import INPUT_PROFILE
from wardian_codex.sessions import telemetry_sources as approval_source
from wardian_core.provider import ProviderEvent, SpawnContext, declared_provider_info, hookimpl

provider_info = declared_provider_info(__file__, executable=argv.EXECUTABLE, input_profile=INPUT_PROFILE)


@hookimpl
def status_changed(ctx: SpawnContext, event: ProviderEvent | None) -> None:
    """A trust accepted in this agent's Codex is carried to the user's config, for the next agent."""
    if ctx.provider == "codex" and trust.is_trust_accepted(event, tui.TRUST_ANSWERED):
        trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), home.user_codex_home())
