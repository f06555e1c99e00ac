"""The snapshot `--force` takes before it removes: everything in one commit on a ref.

`refs/wardian/archive/<id>` (in the source repository, which outlives the worktree) points at
a commit whose tree is the worktree's files as they were, tracked, changed and untracked alike,
and whose parents are the commit HEAD was on and the tip of Wardian's branch: so the commits are
kept too. A submodule's snapshot goes to `refs/wardian/archive-modules/<id>/<path>` of the same
repository (a submodule's own repository lives inside the worktree's and goes with it).
Ignored files that are work go in too; a nested repository goes whole into `nested`'s tar.
Each is read back from the source repository and checked before its ref is written.
"""

import os
import shlex
import tempfile
from pathlib import Path

from wardian_core.worktrees import nested
from wardian_core.worktrees.git import git, succeeds
from wardian_core.worktrees.records import Losses
from wardian_core.worktrees.safety import submodule_paths

ARCHIVE_PREFIX = "refs/wardian/archive/"
MODULES_PREFIX = "refs/wardian/archive-modules/"
_REF_NOTE = "wardian: archive before forced removal"
# commit-tree needs a name; the user's own may be unset on a fresh machine.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "Wardian",
    "GIT_AUTHOR_EMAIL": "wardian@localhost",
    "GIT_COMMITTER_NAME": "Wardian",
    "GIT_COMMITTER_EMAIL": "wardian@localhost",
}


def archive_ref(worktree_id: str) -> str:
    return ARCHIVE_PREFIX + worktree_id


def snapshot(source: Path, folder: Path, worktree_id: str, branch: str | None, losses: Losses) -> dict[str, str]:
    """Store the worktree at `folder` under `archive_ref(worktree_id)` in `source` (and its
    nested repositories under `nested.nested_ref`), each read back and checked before a ref is
    written; the commits' shas."""
    for path in submodule_paths(folder):
        commit = _snapshot_commit(folder / path, None, [], [], f"Wardian archive of submodule {path} of {worktree_id}")
        git(
            folder / path, "push", "--quiet", str(_common_dir(source)), f"{commit}:{MODULES_PREFIX}{worktree_id}/{path}"
        )
    repositories = losses.nested_repositories
    message = f"Wardian archive of worktree {worktree_id} (branch {branch}) before a forced removal"
    extra = losses.changed_carried_files + losses.ignored_work
    commit = _snapshot_commit(folder, branch, extra, repositories, message)
    _verify(source, commit, folder, losses)
    commits = {"commit": commit}
    if repositories:
        nested_message = f"Wardian archive of the git repositories nested in worktree {worktree_id}"
        commits["nested_commit"], names = nested.archive(folder, repositories, nested_message, _IDENTITY)
        nested.verify(source, commits["nested_commit"], names, repositories)
        git(folder, "update-ref", "-m", _REF_NOTE, nested.nested_ref(worktree_id), commits["nested_commit"])
    git(folder, "update-ref", "-m", _REF_NOTE, archive_ref(worktree_id), commit)
    return commits


def _snapshot_commit(
    folder: Path, branch: str | None, extra_files: list[str], excluded: list[str], message: str
) -> str:
    # A nested repository would go in as a gitlink, a commit this repository lacks: it is
    # archived whole on its own (`nested`), so left out here.
    leave_out = [f":(exclude,literal){path}" for path in excluded]
    # git refuses an exclusion naming an ignored path unless --force: those only in the second add.
    in_ignored = tuple(entry for entry in extra_files if entry.endswith("/"))
    leave_out_tracked = [f":(exclude,literal){path}" for path in excluded if not path.startswith(in_ignored)]
    with tempfile.TemporaryDirectory(prefix="wardian-archive-") as scratch:
        env = _IDENTITY | {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
        git(folder, "read-tree", "HEAD", env=env)
        git(folder, "add", "--all", "--", ".", *leave_out_tracked, env=env)
        if extra_files:  # ignored, so named one by one
            git(folder, "add", "--force", "--", *[f":(literal){path}" for path in extra_files], *leave_out, env=env)
        tree = git(folder, "write-tree", env=env).strip()
        parents = _parents(folder, branch)
        return git(folder, "commit-tree", tree, *_each("-p", parents), "-m", message, env=env).strip()


def _verify(source: Path, commit: str, folder: Path, losses: Losses) -> None:
    """The archive's tree, read from `source`, holds every file the losses list (what a folder
    entry holds, file by file); `git_failed` before anything is removed otherwise."""
    archived = set(git(source, "ls-tree", "-r", "-z", "--name-only", commit).split("\0"))
    listed = losses.untracked + losses.changed_carried_files + losses.hidden_changes + losses.uncommitted
    expected = [path for path in listed if (folder / path).exists() or (folder / path).is_symlink()]
    for entry in losses.ignored_work:
        expected += _files_in(folder, entry, losses.nested_repositories) if entry.endswith("/") else [entry]
    missing = sorted(set(expected) - archived)
    if missing:
        raise nested.unverified(source, f"its tree lacks {len(missing)} listed file(s): {missing[:5]}")


def _files_in(folder: Path, entry: str, repositories: list[str]) -> list[str]:
    found = []
    for current, folders, files in os.walk(folder / entry):
        relative = Path(current).relative_to(folder)
        folders[:] = [name for name in folders if str(relative / name) not in repositories]
        found += [str(relative / name) for name in files]
    return found


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


def restore_steps(source: Path, worktree_id: str, folder: Path, branch: str, nested_repositories: bool) -> list[str]:
    """The commands that bring the worktree back as it was (its changes uncommitted again)."""
    ref = archive_ref(worktree_id)
    steps = [f"git -C {_quoted(source)} worktree add --detach {_quoted(folder)} {ref}"]
    steps += [nested.restore_step(source, worktree_id, folder)] if nested_repositories else []
    return [
        *steps,
        f"git -C {_quoted(folder)} reset --quiet {ref}^1",
        f"git -C {_quoted(folder)} switch {branch}  # when the branch still points where HEAD was",
    ]


def _quoted(path: Path) -> str:
    return shlex.quote(str(path))
