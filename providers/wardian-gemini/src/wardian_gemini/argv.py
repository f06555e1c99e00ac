"""Launch and resume arguments of Gemini CLI (checked against 0.61.0)."""

from wardian_core.provider import LaunchPlan, SpawnContext, WardianError, hookimpl
from wardian_core.provider.home import include_args
from wardian_gemini import home
from wardian_gemini.profile import SETTINGS

EXECUTABLE = "gemini"
APPROVAL_MODE_DEFAULT = str(SETTINGS[0].default)
# Set, Gemini runs without its relaunching parent; a trust answer in the TUI then ends it with
# exit 199 (0.61.0 restarts itself to apply trust, which only that parent does). The parent sets
# it in its child, so it leaks into whatever the child runs, a Wardian host started from an
# agent's tool included; empty is unset to Gemini (`!process.env[...]`).
NO_RELAUNCH = "GEMINI_CLI_NO_RELAUNCH"
# Gemini's debug log: the one place that tells, with its delay, a request it retries by itself
# (a short 429); the screen says nothing of a first retry at the default `ui.errorVerbosity`.
DEBUG_LOG = "GEMINI_DEBUG_LOG_FILE"


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return ["--resume", session_id]


def session_args(ctx: SpawnContext) -> list[str]:
    """Wardian assigns the id (`--session-id`); a resume places what `resume_args` answered."""
    if ctx.session_mode == "resume":
        return list(ctx.resume_args)
    return ["--session-id", ctx.provider_session_id] if ctx.provider_session_id else []


def launch_plan(ctx: SpawnContext, env: dict[str, str]) -> LaunchPlan:
    # The host replaces `gemini` with WARDIAN_GEMINI_EXECUTABLE or the settings' `executable`.
    argv = [EXECUTABLE, *session_args(ctx)]
    argv += ["--approval-mode", str(ctx.launch.settings.get("approval_mode") or APPROVAL_MODE_DEFAULT)]
    argv += include_args(ctx, "--include-directories")
    if ctx.launch.model:
        argv += ["--model", ctx.launch.model]
    argv += ctx.launch.extra_args
    if ctx.mode == "headless":
        if not ctx.prompt:
            raise WardianError("usage", "a headless Gemini run needs a prompt", "Give the workflow node a prompt.")
        # `--prompt=…` in one word: a prompt starting with "-" is no option of its own.
        argv += ["--output-format", "stream-json", f"--prompt={ctx.prompt}"]
    if ctx.mode == "interactive":
        env = env | {NO_RELAUNCH: "", DEBUG_LOG: str(home.debug_log(ctx))}
    return LaunchPlan(argv=argv, env=env, cwd=ctx.workspace)


@hookimpl
def build_argv(ctx: SpawnContext) -> LaunchPlan:
    """The launch, in the agent's own Gemini home."""
    return launch_plan(ctx, {"GEMINI_CLI_HOME": str(home.agent_home(ctx))})
