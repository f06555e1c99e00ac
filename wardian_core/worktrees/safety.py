"""What removing a worktree would lose, read from git itself.

Untracked files are always listed (`--untracked-files=all`, never `-uno`: hiding them is how
other tools deleted work). A commit is safe when a branch (the worktree's own included: removal
keeps it, and deletes it only when asked and merged), a tag or a remote-tracking branch holds
it. Submodules are read the same way, each in its own repository.
"""

from pathlib import Path

from wardian_core.worktrees import hidden
from wardian_core.worktrees.git import git
from wardian_core.worktrees.records import CommitLine, Losses

_RENAMED = ("R", "C")


def losses(
    folder: Path, branch: str | None, carried: dict[str, Path] | None = None, source: Path | None = None
) -> Losses:
    """What `folder` holds that removal would lose; `branch` is the one Wardian made (None for a
    submodule, whose HEAD is detached by design); `carried` maps carried-over paths to their
    originals; `source` (the repository it was made from) turns on what git hides (`hidden`)."""
    uncommitted, untracked = _status(folder)
    current = _current_branch(folder)
    head = git(folder, "rev-parse", "HEAD").strip()
    ignored = hidden.ignored_work(folder, source, set(carried or {})) if source is not None else []
    # git shows a repository nested in an untracked folder as that folder, `path/`, alone.
    untracked_folders = [path for path in untracked if path.endswith("/")]
    return Losses(
        uncommitted=uncommitted,
        untracked=[path for path in untracked if not path.endswith("/")],
        changed_carried_files=_changed_copies(folder, carried or {}),
        ignored_work=ignored,
        hidden_changes=hidden.hidden_changes(folder) if source is not None else [],
        nested_repositories=hidden.nested_repositories(folder, untracked_folders, ignored),
        unpushed_commits=unpushed_commits(folder),
        switched_branch=current if branch is not None and current not in (None, branch) else None,
        detached_head=head if branch is not None and current is None else None,
        submodules={path: inner for path in submodule_paths(folder) if (inner := losses(folder / path, None)).any()},
    )


def _status(folder: Path) -> tuple[list[str], list[str]]:
    output = git(
        folder, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none", "--ignored=no"
    )
    fields = output.split("\0")
    uncommitted: list[str] = []
    untracked: list[str] = []
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code == "??":
            untracked.append(path)
            continue
        uncommitted.append(path)
        if code[0] in _RENAMED or code[1] in _RENAMED:
            index += 1  # -z gives a rename's old path as the next field
    return uncommitted, untracked


def _current_branch(folder: Path) -> str | None:
    ref = git(folder, "symbolic-ref", "-q", "HEAD", check=False).strip()
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def unpushed_commits(folder: Path) -> list[CommitLine]:
    """Commits reachable from HEAD that no branch, tag or remote holds. The worktree's own branch
    counts: removal keeps it (and `--delete-branch` deletes only a merged one)."""
    return commits_only_on(folder, ["HEAD"], None)


def commits_only_on(folder: Path, tips: list[str], branch: str | None) -> list[CommitLine]:
    """Commits reachable from `tips` that no branch but `branch`, no tag and no remote holds."""
    # --exclude matches --branches' short names; a branch name cannot hold glob characters.
    excluded = [f"--exclude={branch}"] if branch else []
    output = git(folder, "log", "--format=%H%x00%s", *tips, "--not", *excluded, "--branches", "--remotes", "--tags")
    lines = [line.split("\0", 1) for line in output.splitlines() if "\0" in line]
    return [CommitLine(sha=sha, subject=subject) for sha, subject in lines]


def submodule_paths(folder: Path) -> list[str]:
    """The submodules checked out in `folder` (gitlinks with a repository in place)."""
    output = git(folder, "ls-files", "-z", "--stage")
    paths = [entry.split("\t", 1)[1] for entry in output.split("\0") if entry.startswith("160000 ")]
    return [path for path in paths if (folder / path / ".git").exists()]


def _changed_copies(folder: Path, carried: dict[str, Path]) -> list[str]:
    """Carried-over files (ignored, so git does not see them) edited since they were copied."""
    changed = []
    for relative, original in carried.items():
        copy = folder / relative
        if copy.is_file() and not copy.is_symlink() and (not original.is_file() or _differs(copy, original)):
            changed.append(relative)
    return changed


def _differs(first: Path, second: Path) -> bool:
    return first.stat().st_size != second.stat().st_size or first.read_bytes() != second.read_bytes()
