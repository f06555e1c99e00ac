"""The shapes of worktrees: as stored, as listed, and what a removal would lose."""

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WorktreeRecord(_Shape):
    """One worktree Wardian made, as `state.db` keeps it."""

    id: str
    name: str = Field(description="The branch Wardian made, as people call the worktree.")
    source_folder: Path = Field(description="The top of the repository the worktree was made from.")
    worktree_folder: Path
    branch: str
    base: str = Field(description="The commit the branch started from.")
    base_ref: str = Field(description="What the user named as the start (HEAD unless --base).")
    port_base: int = Field(description="The first of PORT_SPAN ports set-up commands may use, unique per worktree.")
    owner: str = Field("agent", description="`agent`, or `workflow:<run>/<node>` for a workflow node's own.")
    created_at: str


class CommitLine(_Shape):
    sha: str
    subject: str


class Losses(_Shape):
    """What removing a worktree now would lose; empty lists and false flags: nothing."""

    uncommitted: list[str] = Field(default_factory=list, description="Tracked paths with changes, staged or not.")
    untracked: list[str] = Field(default_factory=list, description="Files git does not track and does not ignore.")
    changed_carried_files: list[str] = Field(
        default_factory=list, description="Ignored files copied in by .worktreeinclude and changed since."
    )
    ignored_work: list[str] = Field(
        default_factory=list,
        description="Ignored files (`dir/`: a folder ignored whole) written in the worktree since it was ready.",
    )
    hidden_changes: list[str] = Field(
        default_factory=list, description="Files marked skip-worktree or assume-unchanged that differ from the index."
    )
    nested_repositories: list[str] = Field(
        default_factory=list, description="Git repositories inside the worktree that are not its submodules."
    )
    unpushed_commits: list[CommitLine] = Field(
        default_factory=list, description="Commits of HEAD on no branch (its own kept), tag or remote."
    )
    switched_branch: str | None = Field(None, description="The branch checked out now, when not Wardian's.")
    detached_head: str | None = Field(None, description="The commit a detached HEAD points at.")
    submodules: dict[str, "Losses"] = Field(default_factory=dict, description="The same, per submodule path.")

    def any(self) -> bool:
        return bool(
            self.uncommitted
            or self.untracked
            or self.changed_carried_files
            or self.ignored_work
            or self.hidden_changes
            or self.nested_repositories
            or self.unpushed_commits
            or self.switched_branch
            or self.detached_head
            or any(inner.any() for inner in self.submodules.values())
        )

    def reasons(self) -> list[str]:
        """One line per kind of loss, for messages."""
        lines = [
            f"{len(self.uncommitted)} uncommitted change(s)" if self.uncommitted else "",
            f"{len(self.untracked)} untracked file(s)" if self.untracked else "",
            f"{len(self.changed_carried_files)} changed carried-over file(s)" if self.changed_carried_files else "",
            f"{len(self.ignored_work)} ignored file(s) written in it" if self.ignored_work else "",
            f"{len(self.hidden_changes)} changed skip-worktree/assume-unchanged file(s)" if self.hidden_changes else "",
            f"{len(self.nested_repositories)} nested git repositor(ies): {', '.join(self.nested_repositories)}"
            if self.nested_repositories
            else "",
            f"{len(self.unpushed_commits)} commit(s) on no branch, tag or remote" if self.unpushed_commits else "",
            f"the checkout switched to branch {self.switched_branch}" if self.switched_branch else "",
            f"a detached HEAD at {self.detached_head[:12]}" if self.detached_head else "",
        ]
        lines += [f"submodule {path}: {', '.join(inner.reasons())}" for path, inner in self.submodules.items()]
        return [line for line in lines if line]


class WorktreeView(_Shape):
    """A worktree as `wardian agent worktree list` shows it."""

    id: str
    name: str
    source_folder: str
    worktree_folder: str
    branch: str
    base: str
    base_ref: str
    port_base: int
    owner: str
    created_at: str
    member_agents: list[str]
    present: bool = Field(description="False when the folder was removed outside Wardian.")
    can_remove: bool
    why_not: list[str] = Field(default_factory=list, description="Why a plain remove would refuse.")
    losses: Losses | None = None
