"""The generic provider launches the command given after `--` (a bash agent with its
per-agent rcfile: see `shell_startup`)."""

import re
import shlex

from wardian_core import hookimpl
from wardian_core.errors import WardianError
from wardian_core.provider_models import LaunchPlan, SpawnContext
from wardian_host.providers.builtin_generic.shell_startup import startup_argv


@hookimpl(specname="build_argv")
def launch_plan(ctx: SpawnContext) -> LaunchPlan:
    if ctx.mode == "headless":
        raise WardianError(
            "not_supported",
            "the generic provider runs interactive commands only",
            "Use a provider with the `headless` capability (see `wardian providers list`).",
        )
    if not ctx.launch.extra_args:
        raise WardianError("usage", "the generic provider needs a command to run", _command_hint(ctx))
    check_settings(ctx.launch.settings)
    return LaunchPlan(argv=startup_argv(ctx), env={}, cwd=ctx.workspace)


def _command_hint(ctx: SpawnContext) -> str:
    """Both ways to give the command, written out for this agent so each works as typed: a spawn
    that failed leaves no agent, an agent relaunched after `update --clear-args` still exists."""
    name, cls, workspace = (shlex.quote(str(value)) for value in (ctx.agent_name, ctx.class_name, ctx.workspace))
    return (
        "Give the command after `--`: "
        f"`wardian agent spawn --provider generic --class {cls} --name {name} --workspace {workspace} -- bash`; "
        f"for an agent that exists: `wardian agent update {name} --arg bash`, then `wardian agent resume {name}`."
    )


def check_settings(settings: dict[str, object]) -> None:
    """Refuse at launch what the parser would otherwise have to ignore."""
    pattern = settings.get("prompt_pattern")
    if pattern is not None:
        try:
            re.compile(str(pattern))
        except re.error as exc:
            raise WardianError(
                "validation_failed",
                f"prompt_pattern {pattern!r} is not a regular expression: {exc}",
                "Give a Python regular expression matching the prompt's last line, e.g. "
                "`--provider-setting 'prompt_pattern=>>> $'`; quote it for the shell.",
                {"setting": "prompt_pattern"},
            ) from exc
    quiet = settings.get("idle_quiet_seconds")
    if quiet is not None and (isinstance(quiet, bool) or not isinstance(quiet, int | float) or quiet <= 0):
        raise WardianError(
            "validation_failed",
            f"idle_quiet_seconds must be a positive number, not {quiet!r}",
            "Give the seconds without output after which the command counts as idle, e.g. 1.5.",
            {"setting": "idle_quiet_seconds"},
        )
