"""Worktrees on real git repositories: creation, carry-over, set-up, and removal that loses nothing."""

import json
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from answer_wire import assert_wired_unchanged
from git_repos import commit_file, configure_user_git, files_of, git, new_repository
from stand_in_rows import stand_in_row

from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_core.worktrees import operations, trust
from wardian_core.worktrees.records import WorktreeRecord
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.output.buffer import OutputBuffer


@pytest.fixture
def conn(wardian_home: Path) -> Iterator[sqlite3.Connection]:
    configure_user_git(Path(os.environ["HOME"]))
    connection = open_writer(wardian_home)
    yield connection
    connection.close()


@pytest.fixture
def repo(tmp_path: Path, conn: sqlite3.Connection) -> Path:
    return new_repository(tmp_path / "project", {"README.md": "hello\n", "src/app.py": "print(1)\n"})


def made(conn: sqlite3.Connection, home: Path, repo: Path, stem: str = "coder") -> WorktreeRecord:
    record, _ = operations.create(conn, home, repo, stem=stem, branch=None, base_ref=None)
    return record


def with_submodule(repo: Path, tmp_path: Path) -> Path:
    """`repo` with a submodule at vendor/library holding lib.txt."""
    library = new_repository(tmp_path / "library", {"lib.txt": "library\n"})
    git(repo, "submodule", "add", "-q", str(library), "vendor/library")
    git(repo, "commit", "-q", "-m", "add submodule")
    return repo


def refusal(conn: sqlite3.Connection, home: Path, record: WorktreeRecord) -> dict[str, Any]:
    before = files_of(record.worktree_folder)
    with pytest.raises(WardianError) as caught:
        operations.remove(conn, home, record, force=False, delete_branch=False)
    assert caught.value.code == "would_lose_work"
    assert files_of(record.worktree_folder) == before, "a refused removal must touch nothing"
    assert operations.find(conn, record.id) == record
    losses: dict[str, Any] = caught.value.details["losses"]
    return losses


def test_a_worktree_is_a_new_branch_from_head_under_the_home(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    assert record.branch == "wardian/coder"
    assert record.base == git(repo, "rev-parse", "HEAD").strip()
    assert record.worktree_folder.is_relative_to(wardian_home / "worktrees")
    assert git(record.worktree_folder, "symbolic-ref", "HEAD").strip() == "refs/heads/wardian/coder"
    assert (record.worktree_folder / "src" / "app.py").read_text() == "print(1)\n"
    second = made(conn, wardian_home, repo)
    assert second.branch == "wardian/coder-2" and second.port_base != record.port_base
    assert second.worktree_folder.parent == record.worktree_folder.parent, "one folder per repository"


def test_moving_an_agent_answers_its_snapshot_and_the_worktree_as_the_wire_had_them(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record, report = operations.create(conn, wardian_home, repo, stem="coder", branch=None, base_ref=None)
    snapshot = LiveAgent(row=stand_in_row() | {"worktree": record.id}, buffer=OutputBuffer(1024)).snapshot()
    moved = {"agent": snapshot, "cleared_session": True, "relaunched": False}  # as the lifecycle's move answers
    worktree = {"worktree": record.model_dump(mode="json")}
    assert_wired_unchanged("worktree.enable", moved | worktree | report)
    assert_wired_unchanged("worktree.join", moved | worktree)
    assert_wired_unchanged("worktree.disable", moved | {"left_worktree": record.id})


def test_a_clean_worktree_is_removed_and_its_branch_kept(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=False)
    assert answer["removed"] and not record.worktree_folder.exists()
    assert_wired_unchanged("worktree.remove", answer)  # `teardown` null: none ran
    assert answer["branch"]["deleted"] is False
    assert git(repo, "branch", "--list", record.branch).strip()
    assert str(record.worktree_folder) not in git(repo, "worktree", "list")


def test_uncommitted_changes_refuse_removal(conn: sqlite3.Connection, wardian_home: Path, repo: Path) -> None:
    record = made(conn, wardian_home, repo)
    (record.worktree_folder / "README.md").write_text("edited\n")
    assert refusal(conn, wardian_home, record)["uncommitted"] == ["README.md"]


def test_untracked_files_refuse_removal_even_deep_in_new_folders(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    (record.worktree_folder / "notes" / "deep").mkdir(parents=True)
    (record.worktree_folder / "notes" / "deep" / "idea.txt").write_text("keep me\n")
    assert refusal(conn, wardian_home, record)["untracked"] == ["notes/deep/idea.txt"]


def test_work_committed_on_the_worktree_branch_is_kept_by_removal_without_force(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    sha = commit_file(record.worktree_folder, "feature.py", "x = 1\n", "add feature")
    assert operations.describe(conn, record).can_remove is True
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=False)
    assert answer["removed"] and "archived" not in answer
    assert git(repo, "rev-parse", f"refs/heads/{record.branch}").strip() == sha, "the branch keeps the commit"


def test_delete_branch_keeps_a_branch_whose_commits_are_nowhere_else(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    sha = commit_file(record.worktree_folder, "feature.py", "x = 1\n", "add feature")
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=True)
    assert answer["branch"]["deleted"] is False
    assert [line["sha"] for line in answer["branch"]["unmerged_commits"]] == [sha]
    assert git(repo, "rev-parse", f"refs/heads/{record.branch}").strip() == sha


@pytest.mark.parametrize("branch", ["@", "HEAD", "refs/heads/x", "refs/x", "-x", "x.lock", "a..b", "@{-1}", "a b"])
def test_branch_names_git_refuses_or_rereads_are_invalid_names(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path, branch: str
) -> None:
    with pytest.raises(WardianError) as caught:
        operations.create(conn, wardian_home, repo, stem="coder", branch=branch, base_ref=None)
    assert caught.value.code == "invalid_name" and caught.value.hint
    assert git(repo, "branch", "--list").split() == ["*", "main"], "no branch made"
    assert list(operations.rows.list_worktrees(conn)) == []


def test_a_checkout_switched_to_another_branch_refuses_removal(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    git(record.worktree_folder, "switch", "-q", "-c", "side")
    assert refusal(conn, wardian_home, record)["switched_branch"] == "side"


def test_a_detached_head_refuses_removal(conn: sqlite3.Connection, wardian_home: Path, repo: Path) -> None:
    record = made(conn, wardian_home, repo)
    git(record.worktree_folder, "switch", "-q", "--detach")
    sha = commit_file(record.worktree_folder, "lost.txt", "only here\n", "on a detached head")
    losses = refusal(conn, wardian_home, record)
    assert losses["detached_head"] == sha
    assert [line["sha"] for line in losses["unpushed_commits"]] == [sha]


def test_force_archives_everything_and_the_restore_steps_bring_it_back_byte_for_byte(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    folder = record.worktree_folder
    commit_file(folder, "committed.txt", "a commit only this branch has\n")
    (folder / "README.md").write_text("changed, not committed\n")
    git(folder, "add", "README.md")
    (folder / "src" / "app.py").write_text("print(2)\n")
    (folder / "tool.sh").write_bytes(b"#!/bin/sh\necho \x00\xff binary\n")
    (folder / "tool.sh").chmod(0o755)
    (folder / "new" / "dir").mkdir(parents=True)
    (folder / "new" / "dir" / "data.bin").write_bytes(bytes(range(256)))
    (folder / "link").symlink_to("README.md")
    git(folder, "rm", "-q", "--cached", "src/app.py")
    before = files_of(folder)
    head = git(folder, "rev-parse", "HEAD").strip()

    answer = operations.remove(conn, wardian_home, record, force=True, delete_branch=True)
    assert_wired_unchanged("worktree.remove", answer)
    assert not folder.exists()
    assert answer["archived"]["ref"] == f"refs/wardian/archive/{record.id}"
    assert answer["branch"]["deleted"] is False, "an unmerged branch is never deleted"
    for step in answer["restore"]:
        subprocess.run(step, shell=True, check=True, capture_output=True)
    assert files_of(folder) == before
    assert git(folder, "rev-parse", "HEAD").strip() == head
    assert git(folder, "symbolic-ref", "HEAD").strip() == f"refs/heads/{record.branch}"


def test_two_worktrees_of_one_repository_at_once(conn: sqlite3.Connection, wardian_home: Path, repo: Path) -> None:
    start = threading.Barrier(2)

    def make(stem: str) -> WorktreeRecord:
        own = open_writer(wardian_home)
        try:
            start.wait()
            return made(own, wardian_home, repo, stem)
        finally:
            own.close()

    with ThreadPoolExecutor(2) as pool:
        records = list(pool.map(make, ("one", "two")))  # a failure in either is raised here
    assert sorted(record.branch for record in records) == ["wardian/one", "wardian/two"]
    assert len({record.port_base for record in records}) == 2
    assert all(record.worktree_folder.is_dir() for record in records)


def test_a_worktree_removed_by_hand_is_reported_and_forgotten(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    subprocess.run(["rm", "-rf", str(record.worktree_folder)], check=True)
    view = operations.describe(conn, record)
    assert view.present is False and view.can_remove is True
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=False)
    assert answer["removed_outside_wardian"] is True
    assert_wired_unchanged("worktree.remove", answer)
    assert str(record.worktree_folder) not in git(repo, "worktree", "list")
    with pytest.raises(WardianError) as caught:
        operations.find(conn, record.id)
    assert caught.value.code == "not_found"


def test_submodules_are_checked_out_and_their_changes_refuse_removal(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path, tmp_path: Path
) -> None:
    record = made(conn, wardian_home, with_submodule(repo, tmp_path))
    inner = record.worktree_folder / "vendor" / "library"
    assert (inner / "lib.txt").read_text() == "library\n"
    (inner / "scratch.txt").write_text("work inside the submodule\n")
    losses = refusal(conn, wardian_home, record)
    assert losses["submodules"]["vendor/library"]["untracked"] == ["scratch.txt"]
    (inner / "scratch.txt").unlink()
    assert operations.remove(conn, wardian_home, record, force=False, delete_branch=False)["removed"]
    assert not record.worktree_folder.exists()


def test_worktreeinclude_copies_only_listed_ignored_files_and_never_overwrites(
    conn: sqlite3.Connection, wardian_home: Path, tmp_path: Path
) -> None:
    repo = new_repository(
        tmp_path / "project",
        {".gitignore": ".env\n*.local\nbuild/\n", ".worktreeinclude": ".env\nconfig.local\nnotes.txt\n"},
    )
    (repo / ".env").write_text("SECRET=1\n")
    (repo / "config.local").write_text("mine\n")
    (repo / "other.local").write_text("ignored, not listed\n")
    (repo / "notes.txt").write_text("listed, not ignored: work in progress\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("ignored, not listed\n")
    git(repo, "add", ".worktreeinclude")
    record, report = operations.create(conn, wardian_home, repo, stem="coder", branch=None, base_ref=None)
    assert report["carried_over"] == [".env", "config.local"]
    assert (record.worktree_folder / ".env").read_text() == "SECRET=1\n"
    for absent in ("other.local", "notes.txt", "build/out.o"):
        assert not (record.worktree_folder / absent).exists()
    (record.worktree_folder / ".env").write_text("SECRET=changed in the worktree\n")
    assert refusal(conn, wardian_home, record)["changed_carried_files"] == [".env"]


def test_setup_runs_with_the_worktree_env_and_a_failure_is_reported(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    (wardian_home / "settings.toml").write_text(
        '[worktrees]\nsetup = "echo $WARDIAN_WORKTREE_BRANCH $WARDIAN_PORT_BASE > env.txt; echo broke; exit 3"\n'
    )
    record, report = operations.create(conn, wardian_home, repo, stem="coder", branch="feature/x", base_ref=None)
    setup = report["setup"]
    assert (setup["ok"], setup["exit_code"], setup["timed_out"]) == (False, 3, False)
    assert (record.worktree_folder / "env.txt").read_text() == f"feature/x {record.port_base}\n"
    assert "broke" in Path(setup["log"]).read_text() and "broke" in setup["output_tail"]
    assert Path(setup["log"]).is_relative_to(wardian_home / "logs" / "worktrees" / record.id)


def test_a_teardown_past_its_timeout_is_killed_and_reported(
    conn: sqlite3.Connection, wardian_home: Path, tmp_path: Path
) -> None:
    repo = new_repository(tmp_path / "project")
    (repo / ".wardian").mkdir()
    (repo / ".wardian" / "worktree.toml").write_text('teardown = "echo stopping; sleep 60"\ntimeout_seconds = 0.5\n')
    git(repo, "add", ".wardian")
    git(repo, "commit", "-q", "-m", "worktree commands")
    trust.decide(wardian_home, repo, True)
    record = made(conn, wardian_home, repo)
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=False)
    teardown = answer["teardown"]
    assert (teardown["ok"], teardown["exit_code"], teardown["timed_out"]) == (False, None, True)
    assert "stopping" in teardown["output_tail"]


def test_a_branch_is_deleted_only_when_asked_and_merged_squash_included(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    merged = made(conn, wardian_home, repo, "merged")
    commit_file(merged.worktree_folder, "a.txt", "a\n")
    git(repo, "merge", "-q", "--ff-only", merged.branch)
    assert operations.remove(conn, wardian_home, merged, force=False, delete_branch=True)["branch"]["deleted"]

    squashed = made(conn, wardian_home, repo, "squashed")
    commit_file(squashed.worktree_folder, "b.txt", "b\n", "b one")
    commit_file(squashed.worktree_folder, "b.txt", "b2\n", "b two")
    git(repo, "merge", "-q", "--squash", squashed.branch)
    git(repo, "commit", "-q", "-m", "squash of b")
    answer = operations.remove(conn, wardian_home, squashed, force=True, delete_branch=True)
    assert answer["branch"]["deleted"] is True and "squash" in answer["branch"]["how"]
    assert not git(repo, "branch", "--list", squashed.branch).strip()


def test_force_archives_a_dirty_submodule_in_the_source_repository(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path, tmp_path: Path
) -> None:
    record = made(conn, wardian_home, with_submodule(repo, tmp_path))
    (record.worktree_folder / "vendor" / "library" / "lib.txt").write_text("changed inside the submodule\n")

    operations.remove(conn, wardian_home, record, force=True, delete_branch=False)

    kept = f"refs/wardian/archive-modules/{record.id}/vendor/library"
    assert git(repo, "show", f"{kept}:lib.txt") == "changed inside the submodule\n"


def test_the_worktree_root_setting_places_one_folder_per_repository(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path, tmp_path: Path
) -> None:
    root = tmp_path / "elsewhere"
    (wardian_home / "settings.toml").write_text(f'[worktrees]\nroot = "{root}"\n')
    other = new_repository(tmp_path / "other")

    first, second, third = (
        made(conn, wardian_home, repo),
        made(conn, wardian_home, repo),
        made(conn, wardian_home, other),
    )

    assert first.worktree_folder.parent == second.worktree_folder.parent != third.worktree_folder.parent
    assert {first.worktree_folder.parent.parent, third.worktree_folder.parent.parent} == {root}
    assert first.worktree_folder.parent.name.startswith("project-") and third.worktree_folder.parent.name.startswith(
        "other-"
    )


def run_restore(answer: dict[str, Any]) -> None:
    for step in answer["restore"]:
        subprocess.run(step, shell=True, check=True, capture_output=True)


@pytest.fixture
def ignoring_repo(tmp_path: Path, conn: sqlite3.Connection) -> Path:
    """A repository ignoring logs, build/ and vendor/, with its own build output."""
    ignores = "*.log\nbuild/\nvendor/\n__pycache__/\n"
    repo = new_repository(tmp_path / "project", {"README.md": "hello\n", ".gitignore": ignores})
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("the source's build\n")
    return repo


def test_ignored_files_written_in_the_worktree_are_work_but_build_output_and_caches_are_not(
    conn: sqlite3.Connection, wardian_home: Path, ignoring_repo: Path
) -> None:
    record = made(conn, wardian_home, ignoring_repo)
    folder = record.worktree_folder
    (folder / "notes.log").write_text("what I found\n")
    (folder / "build").mkdir()
    (folder / "build" / "out.o").write_text("a build, made again by the next one\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "app.cpython-312.pyc").write_bytes(b"\x00cache")
    losses = refusal(conn, wardian_home, record)
    assert losses["ignored_work"] == ["notes.log"] and losses["untracked"] == []

    (folder / "notes.log").unlink()
    assert operations.remove(conn, wardian_home, record, force=False, delete_branch=False)["removed"]


def test_files_hidden_by_a_gitignore_edited_in_the_worktree_are_work(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    commit_file(record.worktree_folder, ".gitignore", "secret.txt\nscratch/\n", "ignore my notes")
    git(repo, "branch", "holds-it", record.branch)  # the commit is safe elsewhere: only the files remain
    (record.worktree_folder / "secret.txt").write_text("hidden by the new .gitignore\n")
    (record.worktree_folder / "scratch").mkdir()
    (record.worktree_folder / "scratch" / "draft.md").write_text("a draft\n")
    assert refusal(conn, wardian_home, record)["ignored_work"] == ["scratch/", "secret.txt"]


def test_skip_worktree_and_assume_unchanged_edits_are_work(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    folder = record.worktree_folder
    git(folder, "update-index", "--skip-worktree", "README.md")
    git(folder, "update-index", "--assume-unchanged", "src/app.py")
    (folder / "README.md").write_text("edited where git does not look\n")
    (folder / "src" / "app.py").write_text("print('edited too')\n")
    assert git(folder, "status", "--porcelain") == "", "git itself sees nothing"
    losses = refusal(conn, wardian_home, record)
    assert losses["hidden_changes"] == ["README.md", "src/app.py"] and losses["uncommitted"] == []


def test_force_archives_what_git_hides_and_the_restore_brings_it_back(
    conn: sqlite3.Connection, wardian_home: Path, ignoring_repo: Path
) -> None:
    record = made(conn, wardian_home, ignoring_repo)
    folder = record.worktree_folder
    (folder / "notes.log").write_text("what I found\n")
    (folder / "vendor" / "mine").mkdir(parents=True)
    (folder / "vendor" / "mine" / "patch.diff").write_text("my patch\n")
    git(folder, "update-index", "--assume-unchanged", "README.md")
    (folder / "README.md").write_text("edited where git does not look\n")
    before = files_of(folder)

    answer = operations.remove(conn, wardian_home, record, force=True, delete_branch=False)
    assert not folder.exists()
    run_restore(answer)
    assert files_of(folder) == before


def nested_clone(repo: Path, folder: Path, path: str) -> tuple[Path, str]:
    """A `git clone` of `repo` at `folder/path`, with a commit, a side branch and a file not committed."""
    clone = folder / path
    clone.parent.mkdir(parents=True, exist_ok=True)
    git(folder, "clone", "-q", str(repo), str(clone))
    sha = commit_file(clone, "inside.txt", "committed only in the clone\n", "work in the clone")
    git(clone, "branch", "side")
    (clone / "draft.txt").write_text("not committed in the clone\n")
    return clone, sha


@pytest.mark.parametrize("path", ["clone", "vendor/lib"])
def test_a_nested_repository_is_refused_then_archived_whole_and_restored(
    conn: sqlite3.Connection, wardian_home: Path, ignoring_repo: Path, path: str
) -> None:
    record = made(conn, wardian_home, ignoring_repo)
    folder = record.worktree_folder
    clone, sha = nested_clone(ignoring_repo, folder, path)
    assert refusal(conn, wardian_home, record)["nested_repositories"] == [path]
    before = files_of(folder)

    answer = operations.remove(conn, wardian_home, record, force=True, delete_branch=False)
    assert not folder.exists()
    assert answer["archived"]["nested_ref"] == f"refs/wardian/archive-nested/{record.id}"
    run_restore(answer)
    assert files_of(folder) == before
    assert git(clone, "rev-parse", "HEAD").strip() == sha
    assert git(clone, "rev-parse", "side").strip() == sha
    assert (clone / "draft.txt").read_text() == "not committed in the clone\n"
    assert git(clone, "fsck", "--no-dangling") == ""


def test_force_refuses_a_nested_checkout_whose_repository_is_elsewhere(
    conn: sqlite3.Connection, wardian_home: Path, repo: Path
) -> None:
    record = made(conn, wardian_home, repo)
    git(repo, "worktree", "add", "-q", "--detach", str(record.worktree_folder / "linked"))
    (record.worktree_folder / "linked" / "draft.txt").write_text("in a checkout of another worktree\n")
    before = files_of(record.worktree_folder)
    with pytest.raises(WardianError) as caught:
        operations.remove(conn, wardian_home, record, force=True, delete_branch=False)
    assert caught.value.code == "would_lose_work" and caught.value.hint
    assert caught.value.details["unarchivable"] == ["linked"]
    assert files_of(record.worktree_folder) == before
    assert not git(repo, "for-each-ref", "refs/wardian").strip(), "no archive claimed"


def test_an_archive_lacking_a_listed_file_is_refused_and_nothing_is_removed(
    conn: sqlite3.Connection, wardian_home: Path, ignoring_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wardian_core.worktrees import archive

    record = made(conn, wardian_home, ignoring_repo)
    (record.worktree_folder / "notes.log").write_text("what I found\n")
    snapshot_commit = archive._snapshot_commit

    def forgetful(folder: Path, branch: str | None, extra: list[str], excluded: list[str], message: str) -> str:
        return snapshot_commit(folder, branch, [], excluded, message)  # drops the ignored files

    monkeypatch.setattr(archive, "_snapshot_commit", forgetful)
    with pytest.raises(WardianError) as caught:
        operations.remove(conn, wardian_home, record, force=True, delete_branch=False)
    assert caught.value.code == "git_failed" and "notes.log" in caught.value.message and caught.value.hint
    assert (record.worktree_folder / "notes.log").is_file()
    assert not git(ignoring_repo, "for-each-ref", "refs/wardian").strip(), "no archive claimed"
    assert operations.find(conn, record.id) == record


def repository_with_commands(tmp_path: Path, name: str = "project") -> Path:
    """A repository whose .wardian/worktree.toml set-up and tear-down leave marks in the source."""
    repo = new_repository(tmp_path / name)
    (repo / ".wardian").mkdir()
    (repo / ".wardian" / "worktree.toml").write_text(
        'setup = "touch \\"$WARDIAN_WORKTREE_SOURCE/../setup-ran\\""\n'
        'teardown = "touch \\"$WARDIAN_WORKTREE_SOURCE/../teardown-ran\\""\n'
    )
    git(repo, "add", ".wardian")
    git(repo, "commit", "-q", "-m", "worktree commands")
    return repo


def test_an_untrusted_repository_gets_its_worktree_but_not_its_commands(
    conn: sqlite3.Connection, wardian_home: Path, tmp_path: Path
) -> None:
    repo = repository_with_commands(tmp_path)
    record, report = operations.create(conn, wardian_home, repo, stem="coder", branch=None, base_ref=None)
    assert record.worktree_folder.is_dir() and report["setup"] is None
    assert not (tmp_path / "setup-ran").exists()
    assert any(f"wardian agent worktree trust {repo}" in note for note in report["notes"])

    trust.decide(wardian_home, repo, False)  # a refusal is kept, and still runs nothing
    answer = operations.remove(conn, wardian_home, record, force=False, delete_branch=False)
    assert answer["removed"] and answer["teardown"] is None and "--trust-repo" in answer["notes"][0]
    assert not (tmp_path / "teardown-ran").exists()


def test_a_trusted_repository_runs_its_commands_and_the_trust_is_per_repository(
    conn: sqlite3.Connection, wardian_home: Path, tmp_path: Path
) -> None:
    trusted = repository_with_commands(tmp_path / "trusted")
    other = repository_with_commands(tmp_path / "other")
    trust.decide(wardian_home, trusted, True)

    record, report = operations.create(conn, wardian_home, trusted, stem="coder", branch=None, base_ref=None)
    assert report["setup"]["ok"] and (tmp_path / "trusted" / "setup-ran").exists()
    assert operations.remove(conn, wardian_home, record, force=False, delete_branch=False)["teardown"]["ok"]
    assert (tmp_path / "trusted" / "teardown-ran").exists()

    _, elsewhere = operations.create(conn, wardian_home, other, stem="coder", branch=None, base_ref=None)
    assert elsewhere["setup"] is None and not (tmp_path / "other" / "setup-ran").exists()
    stored = json.loads(trust.trust_file(wardian_home).read_text())["repositories"]
    assert {key: value["trusted"] for key, value in stored.items()} == {str(trusted.resolve()): True}
