"""`.worktreeinclude`: the ignored files a new worktree needs copied in (`.env`, local config).

The file uses gitignore syntax. A file is copied only when it is both listed there and ignored
by git (a tracked file is checked out anyway; an untracked, unignored one is the user's work in
progress, not configuration), and never over a file already in the worktree.
"""

import shutil
from pathlib import Path

from wardian_core.worktrees.git import git

INCLUDE_FILE = ".worktreeinclude"


def listed_ignored_files(source: Path) -> list[str]:
    """The paths under `source` that `.worktreeinclude` lists and git ignores."""
    include = source / INCLUDE_FILE
    if not include.is_file():
        return []
    listed = _paths(git(source, "ls-files", "-z", "--others", "--ignored", f"--exclude-from={include}"))
    ignored = _paths(git(source, "ls-files", "-z", "--others", "--ignored", "--exclude-standard"))
    return sorted(listed & ignored)


def copy_in(source: Path, worktree: Path) -> tuple[list[str], list[str]]:
    """Copy the listed ignored files; (copied, skipped because the worktree already has them)."""
    copied: list[str] = []
    skipped: list[str] = []
    for relative in listed_ignored_files(source):
        target = worktree / relative
        if target.exists() or target.is_symlink():
            skipped.append(relative)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / relative, target, follow_symlinks=False)
        copied.append(relative)
    return copied, skipped


def _paths(output: str) -> set[str]:
    return {path for path in output.split("\0") if path}
