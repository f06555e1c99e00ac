"""A worktree's whole life in state.db and git: make it, describe it, remove it without loss.

Every function is synchronous (git and the set-up commands block); the host runs them in a
thread. The rules a removal follows are docs/worktrees.md's.
"""

import secrets
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from wardian_core import paths
from wardian_core.db import worktrees as rows
from wardian_core.errors import WardianError
from wardian_core.settings import load_settings
from wardian_core.worktrees import archive, carry_over, commands, creating, hidden, nested, safety, trust
from wardian_core.worktrees.git import git
from wardian_core.worktrees.records import Losses, WorktreeRecord, WorktreeView


def worktree_root(home: Path) -> Path:
    configured = load_settings(home).worktrees.root
    return Path(configured).expanduser() if configured else home / "worktrees"


def log_dir(home: Path, worktree_id: str) -> Path:
    """Where a worktree's set-up and tear-down output is kept (it outlives the worktree)."""
    return paths.logs_dir(home) / "worktrees" / worktree_id


def create(
    conn: sqlite3.Connection,
    home: Path,
    workspace: Path,
    *,
    stem: str,
    branch: str | None,
    base_ref: str | None,
    owner: str = "agent",
) -> tuple[WorktreeRecord, dict[str, Any]]:
    """A new worktree of the repository holding `workspace`, on a new branch; its record and a
    report of what was carried over and how set-up went."""
    top = creating.repository_top(workspace)
    worktree_id = f"wt-{secrets.token_hex(4)}"
    with creating.repository_lock(paths.run_dir(home) / "worktrees" / f"{creating.repository_folder_name(top)}.lock"):
        chosen_branch = creating.check_branch_name(top, branch) if branch else creating.free_branch_name(top, stem)
        base = creating.resolve_base(top, base_ref or "HEAD")
        folder = (
            worktree_root(home)
            / creating.repository_folder_name(top)
            / f"{creating.slug(chosen_branch)}-{worktree_id[3:]}"
        )
        notes = creating.add_worktree(top, folder, chosen_branch, base)
    fields = {
        "id": worktree_id,
        "name": chosen_branch,
        "source_folder": top,
        "worktree_folder": folder,
        "branch": chosen_branch,
        "base": base,
        "base_ref": base_ref or "HEAD",
        "owner": owner,
    }
    try:
        record = rows.insert_worktree(conn, fields)
    except BaseException:
        git(top, "worktree", "remove", "--force", str(folder), check=False)  # fresh: nothing of the user's in it
        git(top, "branch", "-D", chosen_branch, check=False)
        raise
    copied, skipped = carry_over.copy_in(top, folder)
    report: dict[str, Any] = {"carried_over": copied, "not_overwritten": skipped, "notes": notes}
    report["setup"], untrusted = _run_phase(home, record, "setup")
    notes += untrusted
    hidden.record_start(folder, top)  # what is ignored now is not the user's work (see `hidden`)
    return record, report


def agent_folder(record: WorktreeRecord, workspace: Path) -> Path:
    """Where an agent of `workspace` works in the worktree: the same folder inside the repository."""
    relative = workspace.resolve().relative_to(record.source_folder.resolve())
    return record.worktree_folder / relative


def _run_phase(home: Path, record: WorktreeRecord, phase: commands.Phase) -> tuple[dict[str, Any] | None, list[str]]:
    """The set-up or tear-down's outcome (None: none to run), and a note when the repository's
    own command was skipped because the user has not trusted that repository (`trust`)."""
    own = load_settings(home).worktrees
    chosen = commands.chosen(own, commands.repository_commands(record.source_folder))
    command = chosen.setup if phase == "setup" else chosen.teardown
    if not command or not record.worktree_folder.is_dir():
        return None, []
    from_repository = not (own.setup if phase == "setup" else own.teardown)
    if from_repository and trust.decision(home, record.source_folder) is not True:
        return None, [trust.untrusted_note(record.source_folder, phase, command, record.worktree_folder)]
    env = commands.environment(record.worktree_folder, record.branch, record.id, record.port_base, record.source_folder)
    log = log_dir(home, record.id) / f"{phase}.log"
    outcome = commands.run_command(phase, command, record.worktree_folder, env, chosen.timeout_seconds, log)
    return outcome.model_dump(mode="json"), []


def carried_originals(record: WorktreeRecord) -> dict[str, Path]:
    return {
        relative: record.source_folder / relative
        for relative in carry_over.listed_ignored_files(record.source_folder)
        if (record.worktree_folder / relative).exists()
    }


def losses_of(record: WorktreeRecord) -> Losses:
    return safety.losses(record.worktree_folder, record.branch, carried_originals(record), record.source_folder)


def describe(conn: sqlite3.Connection, record: WorktreeRecord) -> WorktreeView:
    """The worktree as listed: its members, whether it is still there, whether removal is safe."""
    members = rows.member_agents(conn, record.id)
    present = record.worktree_folder.is_dir()
    why_not: list[str] = []
    losses: Losses | None = None
    if present:
        try:
            losses = losses_of(record)
            why_not = losses.reasons()
        except WardianError as error:
            why_not = [f"git cannot read it: {error.message}"]
    else:
        why_not = []  # removed outside Wardian: nothing left to lose there (its branch stays)
    if members:
        why_not.append("agents work in it: " + ", ".join(members))
    shown = record.model_dump(mode="json")
    return WorktreeView(
        **shown, member_agents=members, present=present, can_remove=not why_not, why_not=why_not, losses=losses
    )


def find(conn: sqlite3.Connection, reference: str) -> WorktreeRecord:
    """A worktree by id, branch name or folder; `not_found` otherwise."""
    record = rows.get_worktree(conn, reference)
    if record is None:
        folder = Path(reference).expanduser()
        record = rows.find_by_folder(conn, str(folder.absolute()))
    if record is None:
        matches = [item for item in rows.list_worktrees(conn) if item.branch == reference]
        record = matches[0] if len(matches) == 1 else None
    if record is None:
        raise WardianError(
            "not_found",
            f"no worktree Wardian made is {reference!r}",
            "Run `wardian agent worktree list` for their ids, branches and folders.",
            {"worktree": reference},
        )
    return record


def remove(
    conn: sqlite3.Connection, home: Path, record: WorktreeRecord, *, force: bool, delete_branch: bool
) -> dict[str, Any]:
    """Remove the worktree when nothing would be lost; with `force`, snapshot all of it first."""
    present = record.worktree_folder.is_dir()
    answer: dict[str, Any] = {"id": record.id, "worktree_folder": str(record.worktree_folder), "removed": True}
    if present:
        losses = losses_of(record)
        if losses.any() and not force:
            raise would_lose_work(record, losses)
        if losses.any():  # before the tear-down, which may delete what it made (or the user's work)
            answer |= _archive(record, losses)
        answer["teardown"], untrusted = _run_phase(home, record, "teardown")
        answer |= {"notes": untrusted} if untrusted else {}
        _remove_folder(record, archived=losses.any())
    else:
        answer["removed_outside_wardian"] = True
    git(record.source_folder, "worktree", "prune", check=False)
    answer["branch"] = _branch_outcome(record, delete_branch)
    rows.delete_worktree(conn, record.id)
    return answer


def _archive(record: WorktreeRecord, losses: Losses) -> dict[str, Any]:
    unarchivable = nested.check_archivable(record.worktree_folder, losses.nested_repositories)
    if unarchivable:
        error = would_lose_work(record, losses)
        names = ", ".join(unarchivable)
        error.message = f"--force cannot archive the nested repositories {names} of worktree {record.id}"
        error.hint = (
            "Their .git is a file naming a repository elsewhere, which an archive would not hold: move them out "
            "of the worktree (or remove them yourself), then remove it again."
        )
        error.details["unarchivable"] = unarchivable
        raise error
    commits = archive.snapshot(record.source_folder, record.worktree_folder, record.id, record.branch, losses)
    has_nested = bool(losses.nested_repositories)
    steps = archive.restore_steps(record.source_folder, record.id, record.worktree_folder, record.branch, has_nested)
    on_branch = not (losses.switched_branch or losses.detached_head)
    archived = {"ref": archive.archive_ref(record.id), "commit": commits["commit"], "lost_without_it": losses.reasons()}
    if has_nested:
        archived |= {"nested_ref": nested.nested_ref(record.id), "nested_commit": commits["nested_commit"]}
    return {"archived": archived, "restore": steps if on_branch else steps[:-1]}


def _remove_folder(record: WorktreeRecord, archived: bool) -> None:
    # git refuses a worktree holding submodules, or changes, without --force: what it holds was
    # checked above (and archived). Otherwise git checks again, closing the race with a late write.
    forced = archived or bool(safety.submodule_paths(record.worktree_folder))
    git(record.source_folder, "worktree", "remove", *(["--force"] if forced else []), str(record.worktree_folder))
    if record.worktree_folder.exists():
        shutil.rmtree(record.worktree_folder)


def _branch_outcome(record: WorktreeRecord, delete_branch: bool) -> dict[str, Any]:
    if not delete_branch:
        return {"name": record.branch, "deleted": False, "why": "branches are deleted only when asked"}
    from wardian_core.worktrees.merged import merged_state

    state = merged_state(record.source_folder, record.branch)
    if state["merged"]:
        git(record.source_folder, "branch", "-D", record.branch)
    return {"name": record.branch, "deleted": bool(state["merged"])} | state


def would_lose_work(record: WorktreeRecord, losses: Losses) -> WardianError:
    return WardianError(
        "would_lose_work",
        f"removing worktree {record.id} ({record.worktree_folder}) would lose: " + "; ".join(losses.reasons()),
        "Commit or push what is listed in details.losses, or add --force: the worktree is then archived to "
        f"{archive.archive_ref(record.id)} in {record.source_folder} first, and the answer says how to restore it.",
        {"worktree": record.id, "worktree_folder": str(record.worktree_folder), "losses": losses.model_dump()},
    )
