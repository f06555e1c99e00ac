from wardian_broken import info
from wardian_core import hookimpl
from wardian_core.provider_models import LaunchPlan


@hookimpl
def provider_info():
    return info("old-contract", contract_version=99)


@hookimpl
def build_argv(ctx):
    return LaunchPlan(argv=["true"], cwd=ctx.workspace)
