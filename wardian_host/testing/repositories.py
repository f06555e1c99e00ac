"""Real git repositories for the providers' unit tests: one with a commit, and a linked worktree of it."""

import subprocess
from pathlib import Path

IDENTITY = ["-c", "user.name=T", "-c", "user.email=t@t.invalid"]


def repository_and_worktree(tmp_path: Path, worktree: Path | None = None) -> tuple[Path, Path]:
    """(a new repository at `tmp_path/src/app`, a linked worktree of it on branch `topic` at
    `worktree`), both by their real paths. By default the worktree is where Wardian's default
    root puts one: under the home `spawn_context` gives (`tmp_path/wardian`)."""
    repository = tmp_path / "src" / "app"
    linked = worktree or tmp_path / "wardian" / "worktrees" / "app" / "topic"
    repository.mkdir(parents=True)
    for args in (["init", "-q"], [*IDENTITY, "commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", "-C", str(repository), *args], check=True, capture_output=True)
    add = ["git", "-C", str(repository), "worktree", "add", "-q", "-b", "topic", str(linked)]
    subprocess.run(add, check=True, capture_output=True)
    return repository.resolve(), linked.resolve()
