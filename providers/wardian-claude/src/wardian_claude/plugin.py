"""The Claude Code provider's plugin: its hooks, each marked where its work is done, and who it
is (provider.toml beside this file)."""

from wardian_claude import argv
from wardian_claude.argv import launch_plan as build_argv
from wardian_claude.argv import resume_args
from wardian_claude.home import prepare as prepare_home
from wardian_claude.home import telemetry_sources as approval_source
from wardian_claude.limits import limit_resume
from wardian_claude.parser import parser_for as parse_output
from wardian_claude.profile import INPUT_PROFILE, SETTINGS
from wardian_core.provider import declared_provider_info

provider_info = declared_provider_info(
    __file__, executable=argv.EXECUTABLE, input_profile=INPUT_PROFILE, settings=SETTINGS
)
