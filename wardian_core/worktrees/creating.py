"""Making a worktree: the repository a workspace is in, a free branch name, `git worktree add`.

Creations in one repository are serialized by a lock file (`lock_file`, in the Wardian home):
`git submodule update --init` writes the repository's shared config, and two at once fail on
its lock.
"""

import fcntl
import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wardian_core.errors import WardianError
from wardian_core.worktrees.git import git, run, succeeds

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def repository_top(folder: Path) -> Path:
    """The top of the git checkout holding `folder`; `not_a_repository` when there is none."""
    done = run(folder, "rev-parse", "--show-toplevel")
    if done.returncode != 0 or not done.stdout.strip():
        raise WardianError(
            "not_a_repository",
            f"{folder} is not inside a git repository: a worktree needs one",
            f"Run `git init` in {folder} (and commit once), or spawn without --worktree.",
            {"folder": str(folder), "git": done.stderr.strip()},
        )
    return Path(done.stdout.strip())


def repository_folder_name(top: Path) -> str:
    """One folder per repository under the worktree root: its name, made unique by its path."""
    digest = hashlib.sha256(str(top).encode()).hexdigest()[:8]
    return f"{_UNSAFE.sub('-', top.name) or 'repository'}-{digest}"


def slug(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-.") or "worktree"


def check_branch_name(top: Path, branch: str) -> str:
    if not valid_branch_name(top, branch):
        raise WardianError(
            "invalid_name",
            f"{branch!r} is not a valid git branch name",
            "Use letters, digits, '/', '-', '_' and '.', e.g. `feature/login` (not `@`, `HEAD` or `refs/...`; "
            "`git check-ref-format --branch NAME` must print NAME itself).",
            {"branch": branch},
        )
    if branch_exists(top, branch):
        raise WardianError(
            "duplicate_name",
            f"branch {branch} already exists in {top}",
            "Name a new branch, or leave BRANCH out for one named after the agent.",
            {"branch": branch, "repository": str(top)},
        )
    return branch


def valid_branch_name(top: Path, branch: str) -> bool:
    """A name git takes as a new branch's, meaning what it says: `check-ref-format --branch`
    expands `@` and `@{-1}` to other branches (so its answer must be the name itself), and
    `refs/...` would make `refs/heads/refs/...`, a branch that reads as another ref."""
    if branch.startswith(("-", "refs/")) or branch in ("@", "HEAD"):
        return False
    done = run(top, "check-ref-format", "--branch", branch)
    return done.returncode == 0 and done.stdout.strip() == branch


def branch_exists(top: Path, branch: str) -> bool:
    return succeeds(top, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}")


def free_branch_name(top: Path, stem: str) -> str:
    """`wardian/<stem>`, or the first free `wardian/<stem>-2`, `-3`, ..."""
    base = f"wardian/{slug(stem)}"
    candidate, number = base, 1
    while branch_exists(top, candidate):
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def resolve_base(top: Path, base_ref: str) -> str:
    done = run(top, "rev-parse", "--verify", "--quiet", f"{base_ref}^{{commit}}")
    if done.returncode != 0:
        raise WardianError(
            "not_found",
            f"{base_ref!r} names no commit in {top}",
            "Give --base a branch, tag or commit of that repository (`git -C <repo> log --oneline`).",
            {"base": base_ref, "repository": str(top)},
        )
    return done.stdout.strip()


@contextmanager
def repository_lock(lock_file: Path) -> Iterator[None]:
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def add_worktree(top: Path, folder: Path, branch: str, base: str) -> list[str]:
    """`git worktree add -b branch folder base`, then its submodules; what the submodules printed."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    git(top, "worktree", "add", "--quiet", "-b", check_branch_name(top, branch), str(folder), base)
    if not (folder / ".gitmodules").is_file():
        return []
    done = run(folder, "submodule", "update", "--init", "--recursive")
    if done.returncode != 0:
        return [f"git submodule update failed: {(done.stderr or done.stdout).strip()}"]
    return []
