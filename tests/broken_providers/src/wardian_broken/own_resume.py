"""Resumes with flags of its own instead of the `ctx.resume_args` the host hands over."""

from wardian_broken import info
from wardian_core import hookimpl
from wardian_core.provider_models import LaunchPlan


@hookimpl
def provider_info():
    return info("own-resume", capabilities=["interactive", "resume"])


@hookimpl
def resume_args(session_id):
    return ["--resume", session_id]


@hookimpl
def build_argv(ctx):
    argv = ["own-resume-cli"]
    if ctx.session_mode == "resume":
        argv += ["--resume", ctx.provider_session_id]  # a second copy of its resume flags
    return LaunchPlan(argv=argv, cwd=ctx.workspace)


class NotAParser:
    pass


@hookimpl
def parse_output(source):
    return NotAParser()  # has no feed
