"""A provider built for contract version 2, as a package of that time would declare itself:
its provider.toml says so, and the host refuses it naming both versions."""

from wardian_core import hookimpl
from wardian_core.provider_declaration import declared_provider_info
from wardian_core.provider_models import LaunchPlan

provider_info = declared_provider_info(__file__, executable=None)


@hookimpl
def build_argv(ctx):
    return LaunchPlan(argv=["true"], cwd=ctx.workspace)
