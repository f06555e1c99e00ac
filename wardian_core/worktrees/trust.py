"""Which repositories' own worktree commands the user allows to run.

A repository's `.wardian/worktree.toml` is code from whoever wrote the repository: a freshly
cloned one would run its set-up as the user at `spawn --worktree`. So its commands run only in a
repository the user trusted (asked once on a terminal, or said up front with `--trust-repo` or
`wardian agent worktree trust`), as each provider asks before it works in a folder. The answers,
yes and no, are kept per repository in `<home>/worktree_trust.json`, replaced in one step under
a lock. Commands from the user's own settings.toml need no trust.
"""

import fcntl
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from wardian_core import paths
from wardian_core.atomic_files import replace_file
from wardian_core.clock import now_iso

TRUST_FILE = "worktree_trust.json"


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trusted: bool
    decided_at: str


class TrustFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    repositories: dict[str, Decision] = Field(default_factory=dict, description="By the repository's top folder.")


def trust_file(home: Path) -> Path:
    return home / TRUST_FILE


def _key(repository: Path) -> str:
    return str(repository.resolve())


def _read(home: Path) -> TrustFile:
    try:
        return TrustFile.model_validate_json(trust_file(home).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return TrustFile()
    except (OSError, ValidationError, UnicodeDecodeError):
        return TrustFile()  # unreadable: nothing is trusted, which only asks again


def decision(home: Path, repository: Path) -> bool | None:
    """True or False as the user answered for `repository`; None when never asked."""
    found = _read(home).repositories.get(_key(repository))
    return found.trusted if found is not None else None


def decide(home: Path, repository: Path, trusted: bool) -> None:
    """Keep the user's answer for `repository`, the other repositories' as they were."""
    with _locked(home):
        kept = _read(home)
        kept.repositories[_key(repository)] = Decision(trusted=trusted, decided_at=now_iso())
        replace_file(trust_file(home), json.dumps(kept.model_dump(), indent=2, sort_keys=True) + "\n")


@contextmanager
def _locked(home: Path) -> Iterator[None]:
    lock = paths.run_dir(home) / "worktrees" / "trust.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # two CLIs answering at once both keep their answer
        yield


def untrusted_note(repository: Path, phase: str, command: str, folder: Path) -> str:
    return (
        f"the {phase} command of {repository / '.wardian' / 'worktree.toml'} was not run: that repository is not "
        f"trusted. Trust it with `wardian agent worktree trust {repository}` (or pass --trust-repo), then run it "
        f"in {folder} yourself: {command}"
    )
