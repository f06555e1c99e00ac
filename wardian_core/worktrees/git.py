"""Running git on a folder: its output, or a `git_failed` envelope carrying git's own words."""

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from wardian_core.errors import WardianError

GIT_TIMEOUT_SECONDS = 120.0
# Git must not stop to ask (a pager, an editor, credentials): no person reads its terminal here.
_QUIET_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_EDITOR": "true", "LC_ALL": "C"}


def git(folder: Path, *args: str, env: Mapping[str, str] | None = None, check: bool = True) -> str:
    """git's standard output for `args` run in `folder`; a non-zero exit raises `git_failed`."""
    done = run(folder, *args, env=env)
    if check and done.returncode != 0:
        raise failed(folder, args, done.stderr or done.stdout)
    return done.stdout


def run(folder: Path, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **_QUIET_ENV, **(env or {})}
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            env=environment,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise WardianError(
            "git_failed",
            "git is not installed (no `git` on PATH)",
            "Install git (e.g. `apt-get install git`); worktrees need it.",
            {"folder": str(folder)},
        ) from None
    except subprocess.TimeoutExpired:
        raise failed(folder, args, f"git took longer than {GIT_TIMEOUT_SECONDS:g} s") from None


def failed(folder: Path, args: tuple[str, ...], output: str) -> WardianError:
    return WardianError(
        "git_failed",
        f"git {' '.join(args[:2])} failed in {folder}: {output.strip() or 'no output'}",
        "Run the same git command in that folder to see why; nothing was removed.",
        {"folder": str(folder), "args": list(args), "output": output.strip()},
    )


def succeeds(folder: Path, *args: str) -> bool:
    return run(folder, *args).returncode == 0
