"""The generic provider launches exactly the command given after `--`."""

import re

from wardian_core.errors import WardianError
from wardian_core.provider_models import LaunchPlan, SpawnContext


def launch_plan(ctx: SpawnContext) -> LaunchPlan:
    if ctx.mode == "headless":
        raise WardianError(
            "not_supported",
            "the generic provider runs interactive commands only",
            "Use a provider with the `headless` capability (see `wardian providers list`).",
        )
    if not ctx.launch.extra_args:
        raise WardianError(
            "usage",
            "the generic provider needs a command to run",
            "Give the command after `--`, e.g. `wardian agent spawn --provider generic Coder -- bash`.",
        )
    check_settings(ctx.launch.settings)
    return LaunchPlan(argv=list(ctx.launch.extra_args), env={}, cwd=ctx.workspace)


def check_settings(settings: dict[str, object]) -> None:
    """Refuse at launch what the parser would otherwise have to ignore."""
    pattern = settings.get("prompt_pattern")
    if pattern is not None:
        try:
            re.compile(str(pattern))
        except re.error as exc:
            raise WardianError(
                "invalid_field", f"prompt_pattern {pattern!r} is not a regular expression: {exc}"
            ) from exc
    quiet = settings.get("idle_quiet_seconds")
    if quiet is not None and (isinstance(quiet, bool) or not isinstance(quiet, int | float) or quiet <= 0):
        raise WardianError("invalid_field", f"idle_quiet_seconds must be a positive number, not {quiet!r}")
