"""Launch and resume arguments of `codex`: interactive TUI, `exec --json` headless runs."""

from wardian_codex import home
from wardian_core.provider import LaunchPlan, SpawnContext, WardianError, hookimpl

EXECUTABLE = "codex"
# Flags only `codex exec` takes; they go right after `exec` (0.169.0 refuses them elsewhere).
# A workspace that is no git repository is refused headless without the check skipped.
EXEC_FLAGS = ["--json", "--skip-git-repo-check"]


@hookimpl
def resume_args(session_id: str) -> list[str]:
    """`codex resume <id>`; `codex exec` takes the same words after its own flags."""
    return ["resume", session_id]


def _shared_options(ctx: SpawnContext) -> list[str]:
    # The real workspace is always the working root: trust and AGENTS.md discovery bind to it.
    options = ["--cd", str(ctx.workspace)]
    for directory in ctx.launch.include_dirs:
        options += ["--add-dir", str(directory)]
    if ctx.launch.model:
        options += ["--model", ctx.launch.model]
    sandbox = ctx.launch.settings.get("sandbox_mode")
    if sandbox:
        options += ["--sandbox", str(sandbox)]
    return options


def _approval_policy(ctx: SpawnContext, headless: bool) -> list[str]:
    policy = ctx.launch.settings.get("approval_policy")
    if not policy:
        return []
    # `codex exec` has no --ask-for-approval flag (0.169.0); a config override says the same.
    return ["--config", f'approval_policy="{policy}"'] if headless else ["--ask-for-approval", str(policy)]


def interactive_argv(ctx: SpawnContext) -> list[str]:
    # The resume words (handed over by the host) come right after the executable.
    argv = [EXECUTABLE, *ctx.resume_args]
    # Without --no-daemon interactive Codex leaves a background server running after it exits.
    argv += ["--no-daemon", *_shared_options(ctx), *_approval_policy(ctx, headless=False)]
    return argv + list(ctx.launch.extra_args)


def headless_argv(ctx: SpawnContext) -> list[str]:
    if ctx.prompt is None:
        raise WardianError("usage", "a headless Codex run needs a prompt", "Pass the prompt for `codex exec`.")
    argv = [EXECUTABLE, "exec", *EXEC_FLAGS, *_shared_options(ctx), *_approval_policy(ctx, headless=True)]
    # `codex exec resume <id>` comes after exec's own flags (0.169.0 applies them to the resume).
    argv += [*ctx.launch.extra_args, *ctx.resume_args]
    # A prompt that starts with "-" must not be read as a flag.
    return [*argv, "--", ctx.prompt]


def launch_plan(ctx: SpawnContext, env: dict[str, str]) -> LaunchPlan:
    argv = headless_argv(ctx) if ctx.mode == "headless" else interactive_argv(ctx)
    return LaunchPlan(argv=argv, env=env, cwd=ctx.workspace)


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    """The launch, in the agent's own Codex home."""
    return launch_plan(ctx, {"CODEX_HOME": str(home.agent_codex_home(ctx))})
