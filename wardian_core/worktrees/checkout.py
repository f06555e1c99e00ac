"""Which repository a linked worktree was made from, read from git's own files (no git process).

A provider asks it to treat a worktree as the repository it checks out: a trust the user gave
that repository holds in its worktrees, as Claude Code 2.1.330 itself rules (its project is
the repository's main checkout), and nothing more.
"""

from pathlib import Path


def linked_worktree(folder: Path) -> tuple[Path, Path] | None:
    """(the top of the linked worktree holding `folder`, its repository's main checkout); None
    when `folder` is in a main checkout, a submodule, or no repository."""
    for candidate in (folder, *folder.parents):
        marker = candidate / ".git"
        if marker.is_dir():
            return None
        if marker.is_file():
            main = _main_checkout(marker)
            return (candidate, main) if main is not None else None
    return None


def _main_checkout(marker: Path) -> Path | None:
    try:
        text = marker.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = marker.parent / text.removeprefix("gitdir:").strip()  # an absolute gitdir stays absolute
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return None  # no commondir: a submodule's .git file, not a worktree
    return common.parent if common.name == ".git" else None
