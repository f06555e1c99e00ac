"""`wardian providers check`: the conformance kit's checks on one installed provider, as a command."""

import tempfile
from pathlib import Path
from typing import Any

from wardian_core.errors import WardianError


def check_provider(name: str) -> dict[str, Any]:
    """Each check and its problems; every problem found is one `validation_failed` error."""
    from wardian_host.providers.manager import load_plugins
    from wardian_host.testing.conformance import conformance_problems, load_provider

    plugins = load_provider(name)
    failure = plugins.failure(name)
    if failure is not None and failure.stage == "missing":
        known = load_plugins().provider_names()
        raise WardianError(
            "not_found",
            f"no provider named {name!r} is installed",
            f"Known providers: {', '.join(known)}." if known else "No provider is installed.",
            {"provider": name, "known": known},
        )
    with tempfile.TemporaryDirectory(prefix="wardian-check-") as workdir:
        found = conformance_problems(name, Path(workdir), plugins=plugins)
    problems = [f"{check}: {problem}" for check, listed in found.items() for problem in listed]
    if problems:
        raise WardianError(
            "validation_failed",
            f"provider {name!r} does not conform: {len(problems)} problem(s), the first: {problems[0]}",
            f"Fix each problem in details.problems, then run `wardian providers check {name}` again; "
            f"`WARDIAN_TRACE_PLUGINS=1` shows each call made into the provider.",
            {"provider": name, "problems": problems},
        )
    return {"provider": name, "passed": True, "checks": sorted(found)}
