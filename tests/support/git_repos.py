"""Real git repositories in a test's temporary folder, for the worktree tests."""

import subprocess
from pathlib import Path


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True)
    return done.stdout


def configure_user_git(home: Path) -> None:
    """The hermetic HOME's git config: a name to commit with, and local submodule clones allowed."""
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test\n\temail = test@example.invalid\n"
        '[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n'
    )


def new_repository(folder: Path, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    for name, text in (files or {"README.md": "hello\n"}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "first")
    return folder


def commit_file(folder: Path, name: str, text: str, message: str = "change") -> str:
    (folder / name).write_text(text)
    git(folder, "add", name)
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD").strip()


def files_of(folder: Path) -> dict[str, bytes | str]:
    """Every file under `folder` but .git: its bytes (or a link's target), with its mode for files."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if relative.parts[0] == ".git":
            continue
        if path.is_symlink():
            found[str(relative)] = "link:" + str(path.readlink())
        elif path.is_file():
            found[str(relative)] = oct(path.stat().st_mode & 0o777).encode() + b":" + path.read_bytes()
    return found
