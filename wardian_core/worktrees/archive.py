"""The snapshot `--force` takes before it removes: everything in one commit on a ref.

`refs/wardian/archive/<id>` (in the source repository, which outlives the worktree) points at
a commit whose tree is the worktree's files as they were, tracked, changed and untracked alike,
and whose parents are the commit HEAD was on and the tip of Wardian's branch: so the commits are
kept too. A submodule's snapshot goes to `refs/wardian/archive-modules/<id>/<path>` of the same
repository (a submodule's own repository lives inside the worktree's and goes with it).
"""

import os
import tempfile
from pathlib import Path

from wardian_core.worktrees.git import git, succeeds
from wardian_core.worktrees.safety import submodule_paths

ARCHIVE_PREFIX = "refs/wardian/archive/"
MODULES_PREFIX = "refs/wardian/archive-modules/"
# commit-tree needs a name; the user's own may be unset on a fresh machine.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "Wardian",
    "GIT_AUTHOR_EMAIL": "wardian@localhost",
    "GIT_COMMITTER_NAME": "Wardian",
    "GIT_COMMITTER_EMAIL": "wardian@localhost",
}


def archive_ref(worktree_id: str) -> str:
    return ARCHIVE_PREFIX + worktree_id


def snapshot(source: Path, folder: Path, worktree_id: str, branch: str | None, extra_files: list[str]) -> str:
    """Store the worktree at `folder` under `archive_ref(worktree_id)` in `source`; the commit's sha."""
    for path in submodule_paths(folder):
        commit = _snapshot_commit(folder / path, None, [], f"Wardian archive of submodule {path} of {worktree_id}")
        git(
            folder / path, "push", "--quiet", str(_common_dir(source)), f"{commit}:{MODULES_PREFIX}{worktree_id}/{path}"
        )
    message = f"Wardian archive of worktree {worktree_id} (branch {branch}) before a forced removal"
    commit = _snapshot_commit(folder, branch, extra_files, message)
    git(folder, "update-ref", "-m", "wardian: archive before forced removal", archive_ref(worktree_id), commit)
    return commit


def _snapshot_commit(folder: Path, branch: str | None, extra_files: list[str], message: str) -> str:
    with tempfile.TemporaryDirectory(prefix="wardian-archive-") as scratch:
        env = _IDENTITY | {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
        git(folder, "read-tree", "HEAD", env=env)
        git(folder, "add", "--all", "--", ".", env=env)
        if extra_files:
            git(folder, "add", "--force", "--", *extra_files, env=env)  # ignored, so named one by one
        tree = git(folder, "write-tree", env=env).strip()
        parents = _parents(folder, branch)
        return git(folder, "commit-tree", tree, *_each("-p", parents), "-m", message, env=env).strip()


def _parents(folder: Path, branch: str | None) -> list[str]:
    head = git(folder, "rev-parse", "HEAD").strip()
    parents = [head]
    if branch and succeeds(folder, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}"):
        tip = git(folder, "rev-parse", f"refs/heads/{branch}").strip()
        parents += [tip] if tip != head else []
    return parents


def _each(flag: str, values: list[str]) -> list[str]:
    return [item for value in values for item in (flag, value)]


def _common_dir(source: Path) -> Path:
    return Path(git(source, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())


def restore_steps(source: Path, worktree_id: str, folder: Path, branch: str) -> list[str]:
    """The commands that bring the worktree back as it was (its changes uncommitted again)."""
    ref = archive_ref(worktree_id)
    return [
        f"git -C {_quoted(source)} worktree add --detach {_quoted(folder)} {ref}",
        f"git -C {_quoted(folder)} reset --quiet {ref}^1",
        f"git -C {_quoted(folder)} switch {branch}  # when the branch still points where HEAD was",
    ]


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))
