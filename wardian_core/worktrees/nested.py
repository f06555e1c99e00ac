"""Archiving the git repositories nested in a worktree (a `git clone` made inside it).

The worktree's own archive can hold a nested repository only as a gitlink, a commit id its
repository does not have. So each is kept whole, its `.git` with every ref, stash and reflog
and its files committed or not, in one tar file stored as a blob in the source repository:
`refs/wardian/archive-nested/<id>` points at a commit whose tree holds `repositories.tar`, with
paths relative to the worktree's folder. `tar -x` brings them back where they were.
"""

import shlex
import subprocess
import tarfile
import tempfile
from pathlib import Path

from wardian_core.errors import WardianError
from wardian_core.worktrees.git import git

NESTED_PREFIX = "refs/wardian/archive-nested/"
TAR_NAME = "repositories.tar"


def nested_ref(worktree_id: str) -> str:
    return NESTED_PREFIX + worktree_id


def check_archivable(folder: Path, repositories: list[str]) -> list[str]:
    """The nested repositories a tar cannot keep: their `.git` is a file naming a repository
    elsewhere (a linked worktree, a submodule's), whose state the tar would not hold."""
    return [path for path in repositories if not (folder / path / ".git").is_dir()]


def archive(folder: Path, repositories: list[str], message: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """A commit (in the repository of `folder`) holding the tar of `repositories`; and the
    names the tar holds, to check it against once it is read back."""
    with tempfile.TemporaryDirectory(prefix="wardian-nested-") as scratch:
        tar_path = Path(scratch) / TAR_NAME
        with tarfile.open(tar_path, "w", format=tarfile.PAX_FORMAT) as tar:
            for path in repositories:
                tar.add(folder / path, arcname=path, recursive=True)
        with tarfile.open(tar_path) as tar:
            names = tar.getnames()
        blob = git(folder, "hash-object", "-w", "--no-filters", str(tar_path)).strip()
    tree = _tree_of(folder, blob)
    commit = git(folder, "commit-tree", tree, "-m", message, env=env).strip()
    return commit, names


def _tree_of(folder: Path, blob: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), "mktree"],
        input=f"100644 blob {blob}\t{TAR_NAME}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise unverified(folder, f"git mktree failed: {done.stderr.strip()}")
    return done.stdout.strip()


def verify(source: Path, commit: str, names: list[str], repositories: list[str]) -> None:
    """Read the tar back out of `source` and check it holds every name written, each
    repository's `.git/HEAD` among them; `git_failed` (nothing removed) otherwise."""
    reader = subprocess.Popen(
        ["git", "-C", str(source), "cat-file", "blob", f"{commit}:{TAR_NAME}"], stdout=subprocess.PIPE
    )
    assert reader.stdout is not None
    try:
        with tarfile.open(fileobj=reader.stdout, mode="r|") as tar:
            read_back = [member.name for member in tar]
    except tarfile.TarError as error:
        raise unverified(source, f"the archive of nested repositories does not read back: {error}") from None
    finally:
        reader.stdout.close()
        reader.wait()
    missing = sorted(set(names) - set(read_back)) + [
        f"{path}/.git/HEAD" for path in repositories if f"{path}/.git/HEAD" not in read_back
    ]
    if reader.returncode != 0 or missing:
        raise unverified(source, f"the archive of nested repositories lacks {missing[:5]}")


def restore_step(source: Path, worktree_id: str, folder: Path) -> str:
    blob = f"{nested_ref(worktree_id)}:{TAR_NAME}"
    return (
        f"git -C {shlex.quote(str(source))} cat-file blob {blob} | tar -xpf - -C {shlex.quote(str(folder))}"
        "  # the nested repositories"
    )


def unverified(folder: Path, why: str) -> WardianError:
    return WardianError(
        "git_failed",
        f"the archive of the worktree could not be verified: {why}",
        "Nothing was removed. Copy what details.losses lists out of the worktree by hand, then remove it.",
        {"folder": str(folder)},
    )
