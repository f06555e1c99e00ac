"""`--worktree` and `wardian agent worktree` through the real `wardian`: the answers' shapes,
each refusal's envelope and exit code, and a forced removal's archive."""

import os
from pathlib import Path

from git_repos import configure_user_git, git, new_repository


def test_a_worktree_agent_from_spawn_to_a_forced_removal(
    run_wardian, generic_spawn_args, wait_status, workspace: Path, tmp_path: Path
) -> None:
    configure_user_git(Path(os.environ["HOME"]))
    new_repository(workspace)
    spawned = run_wardian(
        *generic_spawn_args("maker", "--worktree", "--", "sh", "-c", "echo made > made.txt; sleep 600")
    )
    assert spawned.returncode == 0, spawned.stderr
    answer = spawned.json()
    worktree_id = answer["agent"]["worktree"]
    folder = Path(answer["worktree"]["worktree_folder"])
    assert answer["agent"]["branch"] == "wardian/maker" and answer["agent"]["worktree_folder"] == str(folder)
    assert answer["setup"] is None and answer["carried_over"] == []
    wait_status("maker", "idle")
    assert (folder / "made.txt").read_text() == "made\n" and not (workspace / "made.txt").exists()

    listed = run_wardian("agent", "worktree", "list").json()["worktrees"]
    assert [(item["id"], item["member_agents"], item["can_remove"]) for item in listed] == [
        (worktree_id, ["maker"], False)
    ]
    assert listed[0]["losses"]["untracked"] == ["made.txt"]

    in_use = run_wardian("agent", "worktree", "remove", worktree_id)
    assert (in_use.returncode, in_use.error()["code"]) == (1, "worktree_in_use")

    refused = run_wardian("agent", "delete", "maker", "--confirm", "maker", "--force")
    assert (refused.returncode, refused.error()["code"]) == (1, "would_lose_work")
    assert refused.error()["details"]["losses"]["untracked"] == ["made.txt"]
    assert run_wardian("agent", "maker", "--field", "status").stdout.strip() == "idle", "refused before the stop"

    deleted = run_wardian("agent", "delete", "maker", "--confirm", "maker", "--force", "--keep-worktree")
    assert deleted.returncode == 0, deleted.stderr
    still = run_wardian("agent", "worktree", "remove", worktree_id)
    assert (still.returncode, still.error()["code"]) == (1, "would_lose_work")
    assert (folder / "made.txt").is_file()

    forced = run_wardian("agent", "worktree", "remove", worktree_id, "--force")
    assert forced.returncode == 0, forced.stderr
    archived = forced.json()["worktree"]["archived"]
    assert archived["ref"] == f"refs/wardian/archive/{worktree_id}" and not folder.exists()
    assert git(workspace, "show", f"{archived['ref']}:made.txt") == "made\n"
    assert run_wardian("agent", "worktree", "list").json()["worktrees"] == []

    plain = tmp_path / "not-a-repository"
    plain.mkdir()
    outside = run_wardian(
        "agent",
        "spawn",
        "--provider",
        "generic",
        "--class",
        "Coder",
        "--workspace",
        str(plain),
        "--worktree",
        "--",
        "sleep",
        "600",
    )
    assert (outside.returncode, outside.error()["code"]) == (1, "not_a_repository")
    assert run_wardian("agent", "list", "--scope", "all").json()["agents"] == [], "the refused spawn left no agent"


def test_agents_moved_in_and_out_of_a_worktree_through_wardian(
    run_wardian, spawn, wait_status, workspace: Path
) -> None:
    configure_user_git(Path(os.environ["HOME"]))
    new_repository(workspace)
    spawn("plain", "sleep", "600")
    spawn("helper", "sleep", "600")

    enabled = run_wardian("agent", "worktree", "enable", "plain", "--branch", "topic")
    assert enabled.returncode == 0, enabled.stderr
    moved = enabled.json()
    worktree_id = moved["agent"]["worktree"]
    assert (moved["agent"]["branch"], moved["cleared_session"], moved["relaunched"]) == ("topic", True, True)
    assert moved["worktree"]["id"] == worktree_id and moved["setup"] is None

    joined = run_wardian("agent", "worktree", "join", "helper", "--worktree", worktree_id)
    assert joined.returncode == 0, joined.stderr
    assert joined.json()["agent"]["worktree_folder"] == moved["agent"]["worktree_folder"]
    listed = run_wardian("agent", "worktree", "list").json()["worktrees"]
    assert [item["member_agents"] for item in listed] == [["plain", "helper"]]

    left = run_wardian("agent", "worktree", "disable", "helper").json()
    assert (left["left_worktree"], left["agent"]["worktree"]) == (worktree_id, None)
    unknown = run_wardian("agent", "worktree", "join", "helper", "--worktree", "no-such-worktree")
    assert (unknown.returncode, unknown.error()["code"]) == (2, "not_found")


def test_an_enable_that_cannot_be_made_leaves_the_agent_running(run_wardian, spawn, workspace: Path) -> None:
    configure_user_git(Path(os.environ["HOME"]))
    new_repository(workspace)
    git(workspace, "branch", "taken")
    spawn("busy", "sleep", "600")
    before = run_wardian("agent", "busy", "--field", "pid").stdout

    taken = run_wardian("agent", "worktree", "enable", "busy", "--branch", "taken")
    nowhere = run_wardian("agent", "worktree", "enable", "busy", "--base", "no-such-ref")

    assert (taken.returncode, taken.error()["code"]) == (1, "duplicate_name")
    assert (nowhere.returncode, nowhere.error()["code"]) == (2, "not_found")
    assert run_wardian("agent", "busy", "--field", "pid").stdout == before != "", "refused before the stop"


def test_a_repository_runs_its_worktree_set_up_only_once_trusted(
    run_wardian, generic_spawn_args, workspace: Path
) -> None:
    configure_user_git(Path(os.environ["HOME"]))
    new_repository(workspace, {"README.md": "hi\n", ".wardian/worktree.toml": 'setup = "echo ran > setup-ran.txt"\n'})

    def spawned(name: str, *options: str) -> tuple[dict, Path]:
        done = run_wardian(*generic_spawn_args(name, "--worktree", *options, "--", "sleep", "600"))
        assert done.returncode == 0, done.stderr
        answer = done.json()
        return answer, Path(answer["worktree"]["worktree_folder"])

    untrusted, folder = spawned("stranger")
    assert untrusted["setup"] is None and folder.is_dir() and not (folder / "setup-ran.txt").exists()
    assert any(f"wardian agent worktree trust {workspace}" in note for note in untrusted["notes"])

    trusted, folder = spawned("friend", "--trust-repo")
    assert trusted["setup"]["ok"] and (folder / "setup-ran.txt").read_text() == "ran\n"
    remembered, folder = spawned("again")
    assert remembered["setup"]["ok"] and (folder / "setup-ran.txt").is_file()

    revoked = run_wardian("agent", "worktree", "trust", str(workspace), "--revoke")
    assert revoked.json() == {"schema": 1, "repository": str(workspace), "trusted": False}
    skipped, folder = spawned("later")
    assert skipped["setup"] is None and not (folder / "setup-ran.txt").exists()


def test_trust_repo_without_a_worktree_is_usage(run_wardian, generic_spawn_args) -> None:
    refused = run_wardian(*generic_spawn_args("plain", "--trust-repo", "--", "sleep", "600"))
    assert (refused.returncode, refused.error()["code"]) == (1, "usage")
    assert "--trust-repo needs --worktree" in refused.error()["message"] and refused.error()["hint"]
