"""Whether a branch's work is already elsewhere, so deleting it loses nothing.

Merged means every commit of the branch is on another branch, tag or remote, or (a squash or
rebase merge, whose commits differ) merging the branch into another branch would change no
file there: its changes are already in that branch's tree. A conflict leaves it unknown, and
an unknown is never deleted.
"""

from pathlib import Path
from typing import Any

from wardian_core.worktrees.git import git, run
from wardian_core.worktrees.safety import commits_only_on


def merged_state(source: Path, branch: str) -> dict[str, Any]:
    ref = f"refs/heads/{branch}"
    if run(source, "show-ref", "--verify", "--quiet", ref).returncode != 0:
        return {"merged": False, "why": f"there is no branch {branch} (deleted already?)"}
    unique = commits_only_on(source, [ref], branch)
    if not unique:
        return {"merged": True, "how": "every commit is on another branch, tag or remote"}
    for target in _other_branches(source, branch):
        if _holds_changes(source, target, ref):
            return {"merged": True, "how": f"its changes are in {target} (squash or rebase merge, same content)"}
    return {
        "merged": False,
        "why": f"{len(unique)} commit(s) are on no other branch, and no branch holds their changes "
        "(or git cannot tell for a conflicting merge): kept",
        "unmerged_commits": [line.model_dump() for line in unique],
    }


def _other_branches(source: Path, branch: str) -> list[str]:
    output = git(source, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes")
    return [ref for ref in output.split() if ref != f"refs/heads/{branch}" and not ref.endswith("/HEAD")]


def _holds_changes(source: Path, target: str, ref: str) -> bool:
    done = run(source, "merge-tree", "--write-tree", target, ref)
    if done.returncode != 0:  # a conflict (1) or an older git (usage): cannot tell, so not merged
        return False
    merged_tree = done.stdout.split("\n", 1)[0].strip()
    return merged_tree == git(source, "rev-parse", f"{target}^{{tree}}").strip()
