from wardian_broken import info
from wardian_core import hookimpl
from wardian_core.provider_models import LaunchPlan


@hookimpl
def provider_info():
    return info("broken-hook")


@hookimpl
def build_argv(ctx):
    return LaunchPlan(argv=["true"], cwd=ctx.workspace)


@hookimpl
def parse_outputs(ctx, source):  # misspelled: the hook is parse_output
    return None
