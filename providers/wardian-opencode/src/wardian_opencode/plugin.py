"""The OpenCode provider's plugin: its hooks, each marked where its work is done, and who it is
(provider.toml beside this file)."""

from wardian_core.provider import declared_provider_info
from wardian_opencode import argv
from wardian_opencode.argv import build_argv, resume_args
from wardian_opencode.home import prepare_home
from wardian_opencode.limits import limit_resume
from wardian_opencode.parser import parser_for as parse_output
from wardian_opencode.parser import telemetry_sources as approval_source
from wardian_opencode.profile import INPUT_PROFILE, SETTINGS

provider_info = declared_provider_info(
    __file__, executable=argv.EXECUTABLE, input_profile=INPUT_PROFILE, settings=SETTINGS
)
