"""Launch and resume arguments of `wardian-example-cli`."""

from wardian_core.provider import LaunchPlan, SpawnContext, hookimpl

EXECUTABLE = "wardian-example-cli"


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return ["--resume", session_id]


@hookimpl(specname="build_argv")
def launch_plan(ctx: SpawnContext) -> LaunchPlan:
    argv = [EXECUTABLE]
    if ctx.mode == "headless":
        argv += ["run", "--json"]
    if ctx.launch.model:
        argv += ["--model", ctx.launch.model]
    argv += ["--tone", str(ctx.launch.settings.get("tone", "plain"))]
    for directory in [*ctx.include_roots, *ctx.launch.include_dirs]:
        argv += ["--include", str(directory)]
    argv += ctx.resume_args  # what resume_args answered, handed over by the host
    argv += ctx.launch.extra_args
    if ctx.mode == "headless":
        argv.append(ctx.prompt or "")
    return LaunchPlan(argv=argv, env={}, cwd=ctx.workspace)
