"""What git hides in a worktree and is still work: ignored files written there, index entries
marked skip-worktree or assume-unchanged whose files changed, and git repositories nested in it.

An ignored entry (a file, or `dir/` when git ignores the whole folder) is work unless it was
there when the worktree was ready (carried over or made by the set-up: the list kept in the
worktree's own git folder), the source repository ignores the same folder too (its build
output, caches, dependencies: made again by a build), the source holds the same bytes at that
path, or it sits in a cache folder every tool remakes (`REMADE_FOLDERS`). Files carried over by
`.worktreeinclude` are judged by `changed_carried_files` instead.
"""

import os
from pathlib import Path

from wardian_core.worktrees.git import git, run

START_LIST = "wardian-ignored-at-start"
# Folders a tool writes again on its next run; named here so a test run or an install is not
# mistaken for the user's work (and never copied into an archive).
REMADE_FOLDERS = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", ".venv", ".tox", ".nox"}
)


def ignored_entries(folder: Path) -> list[str]:
    """What git ignores under `folder`: files, and `dir/` for a folder ignored whole."""
    output = git(
        folder, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--no-empty-directory"
    )
    return [path for path in output.split("\0") if path]


def record_start(worktree: Path, source: Path) -> None:
    """Keep what is ignored in the ready worktree and the folders the source ignores whole, in
    the worktree's own git folder (git removes it with the worktree)."""
    done = run(worktree, "rev-parse", "--absolute-git-dir")
    if done.returncode != 0:
        return
    entries = ignored_entries(worktree) + [entry for entry in ignored_entries(source) if entry.endswith("/")]
    (Path(done.stdout.strip()) / START_LIST).write_text("\0".join(sorted(set(entries))), encoding="utf-8")


def _started_with(worktree: Path, source: Path) -> set[str]:
    done = run(worktree, "rev-parse", "--absolute-git-dir")
    kept = Path(done.stdout.strip()) / START_LIST if done.returncode == 0 else None
    if kept is not None and kept.is_file():
        return {entry for entry in kept.read_text(encoding="utf-8").split("\0") if entry}
    # A worktree made before the list was kept: the folders the source ignores whole now.
    return {entry for entry in ignored_entries(source) if entry.endswith("/")}


def ignored_work(worktree: Path, source: Path, carried: set[str]) -> list[str]:
    """The ignored entries of `worktree` written there since it was ready (see the module)."""
    started = _started_with(worktree, source)
    return [
        entry
        for entry in ignored_entries(worktree)
        if entry.rstrip("/") not in carried and not _excused(entry, started, worktree, source)
    ]


def _excused(entry: str, started: set[str], worktree: Path, source: Path) -> bool:
    parts = Path(entry).parts
    if REMADE_FOLDERS.intersection(parts if entry.endswith("/") else parts[:-1]):
        return True
    folders = {"/".join(parts[:depth]) + "/" for depth in range(1, len(parts) + 1)}
    if entry in started or folders & started:
        return True
    return not entry.endswith("/") and _same_file(worktree / entry, source / entry)


def _same_file(copy: Path, original: Path) -> bool:
    if copy.is_symlink() or original.is_symlink() or not original.is_file():
        return False
    return copy.stat().st_size == original.stat().st_size and copy.read_bytes() == original.read_bytes()


def hidden_changes(folder: Path) -> list[str]:
    """Index entries marked skip-worktree or assume-unchanged whose file on disk differs from
    the index (git status does not look at them). A missing file (a sparse checkout) is none."""
    flagged: dict[str, str] = {}
    for entry in git(folder, "ls-files", "-z", "-v", "-s").split("\0"):
        if "\t" not in entry:
            continue
        info, path = entry.split("\t", 1)
        tag, mode, sha = info.split(" ")[:3]
        if (tag == "S" or tag.islower()) and mode in ("100644", "100755") and (folder / path).is_file():
            flagged[path] = sha
    if not flagged:
        return []
    paths = sorted(flagged)
    hashed = git(folder, "hash-object", "--", *paths).split()
    return [path for path, sha in zip(paths, hashed, strict=True) if flagged[path] != sha]


def nested_repositories(folder: Path, untracked_folders: list[str], ignored: list[str]) -> list[str]:
    """Git repositories inside `folder` that are not its submodules: an untracked folder git
    shows whole holds one; an ignored folder kept as work is searched."""
    found = [entry.rstrip("/") for entry in untracked_folders]
    for entry in ignored:
        if entry.endswith("/"):
            found += _repositories_under(folder, entry.rstrip("/"))
    return sorted(found)


def _repositories_under(folder: Path, relative: str) -> list[str]:
    found: list[str] = []
    for current, folders, files in os.walk(folder / relative):
        if ".git" in folders or ".git" in files:
            found.append(str(Path(current).relative_to(folder)))
            folders.clear()  # the repository is kept whole, with whatever it nests
    return found
