"""Set-up and tear-down commands of a worktree: which, with what environment, and their outcome.

The commands come from settings.toml's `[worktrees]` table (the user's machine) or, for a key it
leaves unset, from the repository's `.wardian/worktree.toml` (shared with the team; run only
once the user trusts that repository, `trust`). Each runs
with `/bin/sh -c` in the worktree, under a timeout after which its process group is killed; its
output is appended to `<home>/logs/worktrees/<id>/<phase>.log`, and a failure is returned (and
shown in the command's answer), never swallowed.
"""

import os
import signal
import subprocess
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from wardian_core.clock import now_iso
from wardian_core.errors import WardianError
from wardian_core.settings.model import WorktreeCommandSettings

REPOSITORY_FILE = Path(".wardian") / "worktree.toml"
PORT_SPAN = 10
Phase = Literal["setup", "teardown"]
_TAIL_CHARS = 2000


class CommandOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Phase
    command: str
    ok: bool
    exit_code: int | None
    timed_out: bool
    log: str = Field(description="The file holding everything the command printed.")
    output_tail: str


def repository_commands(source: Path) -> WorktreeCommandSettings:
    """The repository's own `.wardian/worktree.toml`, or nothing configured."""
    file = source / REPOSITORY_FILE
    try:
        return WorktreeCommandSettings.model_validate(tomllib.loads(file.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return WorktreeCommandSettings()
    except (tomllib.TOMLDecodeError, ValidationError, UnicodeDecodeError) as exc:
        raise WardianError(
            "validation_failed",
            f"{file} is not a valid worktree command file: {exc}",
            "It holds `setup`, `teardown` (shell commands) and `timeout_seconds`; fix or remove it.",
            {"file": str(file)},
        ) from None


def chosen(settings: WorktreeCommandSettings, repository: WorktreeCommandSettings) -> WorktreeCommandSettings:
    """settings.toml's keys win; the repository's fill in what it leaves unset."""
    return WorktreeCommandSettings(
        setup=settings.setup or repository.setup,
        teardown=settings.teardown or repository.teardown,
        timeout_seconds=settings.timeout_seconds
        if "timeout_seconds" in settings.model_fields_set
        else repository.timeout_seconds,
    )


def environment(worktree: Path, branch: str, worktree_id: str, port_base: int, source: Path) -> dict[str, str]:
    return {
        "WARDIAN_WORKTREE_PATH": str(worktree),
        "WARDIAN_WORKTREE_BRANCH": branch,
        "WARDIAN_WORKTREE_ID": worktree_id,
        "WARDIAN_WORKTREE_SOURCE": str(source),
        "WARDIAN_PORT_BASE": str(port_base),
        "WARDIAN_PORT_SPAN": str(PORT_SPAN),
    }


def run_command(
    phase: Phase, command: str, worktree: Path, env: dict[str, str], timeout: float, log: Path
) -> CommandOutcome:
    """Run one set-up or tear-down command; its outcome, its output appended to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as sink:
        sink.write(f"--- {now_iso()} {phase}: {command}\n".encode())
        sink.flush()
        process = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=worktree,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group, so a timeout ends what it started too
        )
        timed_out = _wait(process, timeout)
        sink.write(f"--- exit {process.returncode}{' (timed out)' if timed_out else ''}\n".encode())
    exit_code = None if timed_out else process.returncode
    return CommandOutcome(
        phase=phase,
        command=command,
        ok=exit_code == 0,
        exit_code=exit_code,
        timed_out=timed_out,
        log=str(log),
        output_tail=_tail(log),
    )


def _wait(process: "subprocess.Popen[bytes]", timeout: float) -> bool:
    try:
        process.wait(timeout=timeout)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return True


def _tail(log: Path) -> str:
    with open(log, "rb") as handle:
        handle.seek(max(0, log.stat().st_size - _TAIL_CHARS))
        return handle.read().decode(errors="replace")
