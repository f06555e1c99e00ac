"""Launch and resume arguments of OpenCode (checked against 1.18.33): the TUI with its server on
Wardian's port, and `opencode run --format json` headless."""

from wardian_core.provider import LaunchPlan, SpawnContext, WardianError, hookimpl
from wardian_opencode import server

EXECUTABLE = "opencode"


@hookimpl
def resume_args(session_id: str) -> list[str]:
    """`--session <id>`: the TUI and `run` both continue that session."""
    return ["--session", session_id]


def _shared_options(ctx: SpawnContext) -> list[str]:
    options = list(ctx.resume_args) if ctx.session_mode == "resume" else []
    if ctx.launch.model:
        options += ["--model", ctx.launch.model]
    if ctx.launch.settings.get("auto_approve"):
        options.append("--auto")
    return options


def interactive_argv(ctx: SpawnContext) -> list[str]:
    argv = [EXECUTABLE, "--port", str(server.choose_port(ctx)), "--hostname", server.HOST, *_shared_options(ctx)]
    return [*argv, *ctx.launch.extra_args, str(ctx.workspace)]


def headless_argv(ctx: SpawnContext) -> list[str]:
    if not ctx.prompt:
        raise WardianError("usage", "a headless OpenCode run needs a prompt", "Give the workflow node a prompt.")
    argv = [EXECUTABLE, "run", "--format", "json", *_shared_options(ctx), *ctx.launch.extra_args]
    # After `--` a prompt starting with "-" is the message, not an option.
    return [*argv, "--", ctx.prompt]


def launch_plan(ctx: SpawnContext, env: dict[str, str]) -> LaunchPlan:
    argv = headless_argv(ctx) if ctx.mode == "headless" else interactive_argv(ctx)
    # OpenCode 1.18 takes its project directory from $PWD, not from the process's cwd.
    return LaunchPlan(argv=argv, env={**env, "PWD": str(ctx.workspace)}, cwd=ctx.workspace)


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    return launch_plan(ctx, {})
