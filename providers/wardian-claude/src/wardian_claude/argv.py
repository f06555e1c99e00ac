"""Launch and resume arguments of Claude Code (checked against 2.1.197 and 2.1.330)."""

import os
import re
from collections.abc import Mapping

from wardian_claude import home, mcp
from wardian_claude.profile import permission_mode
from wardian_core.provider import LaunchPlan, SpawnContext, WardianError, hookimpl
from wardian_core.provider.home import include_args

EXECUTABLE = "claude"
HEADLESS_FLAGS = ["--output-format", "stream-json", "--verbose"]
_SECRET_NAME = re.compile(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$", re.IGNORECASE)


@hookimpl
def resume_args(session_id: str) -> list[str]:
    return ["--resume", session_id]


def refuse_secret_session_id(session_id: str, environ: Mapping[str, str]) -> None:
    """A session id lands in argv, process listings and logs: never let a secret be one."""
    for name, value in environ.items():
        if value and value.strip() == session_id.strip() and _SECRET_NAME.search(name):
            raise WardianError(
                "usage",
                f"refusing provider session id: it equals the value of ${name}",
                "A session id is shown in process listings; resume with the agent's own session id "
                "(`wardian agent <name> --fields provider_session_id`).",
                {"variable": name},
            )


def session_args(ctx: SpawnContext) -> list[str]:
    session_id = ctx.provider_session_id
    if not session_id:
        return []
    refuse_secret_session_id(session_id, os.environ)
    if ctx.session_mode == "resume":
        # What resume_args answered, handed over by the host. --session-id or --name next
        # to --resume would start another session (2.1.197).
        return list(ctx.resume_args)
    args = ["--session-id", session_id]
    if ctx.mode == "interactive":
        args += ["--name", ctx.agent_name]
    return args


@hookimpl(specname="build_argv")
def launch_plan(ctx: SpawnContext) -> LaunchPlan:
    argv = [EXECUTABLE]
    if ctx.mode == "headless":
        if not ctx.prompt:
            raise WardianError("usage", "a headless Claude run needs a prompt", "Give the workflow node a prompt.")
        # Stream-JSON exists only with --print; the interactive TUI refuses these flags.
        argv += ["-p", *HEADLESS_FLAGS]
    argv += session_args(ctx)
    argv += ["--permission-mode", permission_mode(ctx.launch.settings)]
    if ctx.mode == "interactive":
        argv += ["--settings", str(home.settings_file(ctx))]
    argv += mcp.args(ctx)
    argv += include_args(ctx, "--add-dir")
    if ctx.launch.model:
        argv += ["--model", ctx.launch.model]
    argv += ctx.launch.extra_args
    if ctx.mode == "headless":
        # After `--`: --add-dir takes several values and would swallow a trailing prompt, and
        # a prompt that starts with "-" is not an option.
        argv += ["--", ctx.prompt or ""]
    return LaunchPlan(argv=argv, env={}, cwd=ctx.workspace)
