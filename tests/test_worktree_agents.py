"""Agents in worktrees on the in-process host: spawned there, moved in and out (relaunched in a
fresh session), and deleted without losing what their worktree holds."""

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from git_repos import configure_user_git, git, new_repository
from in_process_agents import spawn, stored_agents, wait_until

from wardian_core.control.models import SpawnParams, WorktreeRequest
from wardian_core.errors import WardianError
from wardian_host.testing.in_process import InProcessHost


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    configure_user_git(Path(os.environ["HOME"]))
    return new_repository(tmp_path / "project", {"README.md": "hello\n", "app/main.py": "print(1)\n"})


def spawn_in_worktree(host: InProcessHost, workspace: Path, name: str, *command: str) -> dict[str, Any]:
    return host.call(host.host.lifecycle.spawn(worktree_spawn(workspace, name, *command))).wire()


def worktree_spawn(workspace: Path, name: str, *command: str) -> SpawnParams:
    return SpawnParams.model_validate(
        {
            "provider": "generic",
            "class": "Coder",
            "workspace": str(workspace),
            "name": name,
            "launch_config": {"extra_args": list(command)},
            "worktree": {"branch": None, "base": None},
        }
    )


def test_an_agent_spawned_with_a_worktree_works_there_not_in_the_workspace(
    running_host: InProcessHost, repo: Path
) -> None:
    workspace = repo / "app"  # a folder inside the repository: the agent works in the same one there
    spawned = spawn_in_worktree(running_host, workspace, "builder", "sh", "-c", "pwd > where.txt")
    wait_until(running_host, "builder", "off")

    folder = Path(spawned["worktree_folder"])
    made = spawned["worktree_made"]["worktree"]
    assert folder == Path(made["worktree_folder"]) / "app"
    assert (folder / "where.txt").read_text().strip() == str(folder)
    assert not (workspace / "where.txt").exists()
    assert spawned["branch"] == "wardian/builder" and spawned["workspace"] == str(workspace)
    stored = stored_agents(running_host.host.home)[spawned["uuid"]]
    assert (stored["worktree"], stored["branch"]) == (made["id"], "wardian/builder")


def test_enable_and_disable_relaunch_the_agent_there_in_a_fresh_session(
    running_host: InProcessHost, repo: Path
) -> None:
    spawned = spawn(running_host, repo, "mover", "sleep", "600")
    lifecycle = running_host.host.lifecycle
    worktrees = lifecycle.worktrees

    entered = running_host.call(
        lifecycle.move("mover", lambda agent: worktrees.create_for(agent, WorktreeRequest(branch="topic")))
    )
    assert entered["cleared_session"] is True and entered["relaunched"] is True
    assert entered["agent"]["pid"] != spawned["pid"] and entered["agent"]["branch"] == "topic"
    assert Path(f"/proc/{entered['agent']['pid']}/cwd").resolve() == Path(entered["agent"]["worktree_folder"])

    left = running_host.call(lifecycle.move("mover", worktrees.leave))
    assert left["left_worktree"] == entered["worktree"]["id"] and left["agent"]["worktree"] is None
    assert Path(f"/proc/{left['agent']['pid']}/cwd").resolve() == repo
    assert Path(entered["agent"]["worktree_folder"]).is_dir(), "leaving keeps the worktree"


def test_deleting_the_last_agent_refuses_while_its_worktree_holds_work(running_host: InProcessHost, repo: Path) -> None:
    spawned = spawn_in_worktree(running_host, repo, "writer", "sleep", "600")
    folder = Path(spawned["worktree_folder"])
    (folder / "draft.md").write_text("unsaved thoughts\n")
    lifecycle = running_host.host.lifecycle

    with pytest.raises(WardianError) as refused:
        running_host.call(lifecycle.delete("writer", "writer", force=True))
    assert refused.value.code == "would_lose_work"
    assert refused.value.details["losses"]["untracked"] == ["draft.md"]
    assert running_host.host.registry.resolve("writer").is_alive, "refused before the agent was stopped"

    kept = running_host.call(lifecycle.delete("writer", "writer", force=True, keep_worktree=True)).wire()
    assert kept["deleted"] and "worktree_removed" not in kept
    assert (folder / "draft.md").read_text() == "unsaved thoughts\n"


def test_deleting_the_last_agent_of_a_clean_worktree_removes_it(running_host: InProcessHost, repo: Path) -> None:
    spawned = spawn_in_worktree(running_host, repo, "tidy", "sleep", "600")
    deleted = running_host.call(running_host.host.lifecycle.delete("tidy", "tidy", force=True)).wire()
    assert deleted["worktree_removed"]["removed"] is True
    assert not Path(spawned["worktree_folder"]).exists()
    assert git(repo, "branch", "--list", "wardian/tidy").strip(), "the branch is kept"


def test_a_worktree_removed_by_hand_refuses_a_relaunch_until_the_agent_leaves_it(
    running_host: InProcessHost, repo: Path
) -> None:
    spawned = spawn_in_worktree(running_host, repo, "orphan", "sleep", "600")
    lifecycle = running_host.host.lifecycle
    running_host.call(lifecycle.stop("orphan", "pause"))
    subprocess.run(["rm", "-rf", spawned["worktree_made"]["worktree"]["worktree_folder"]], check=True)

    with pytest.raises(WardianError) as refused:
        running_host.call(lifecycle.resume("orphan"))
    assert refused.value.code == "worktree_missing"

    running_host.call(lifecycle.move("orphan", lifecycle.worktrees.leave))
    assert running_host.call(lifecycle.resume("orphan")).status == "starting"
    removed = running_host.call(lifecycle.worktrees.remove(spawned["worktree"], force=False, delete_branch=False))
    assert removed["removed_outside_wardian"] is True


def test_two_agents_spawned_at_once_get_a_worktree_each(running_host: InProcessHost, repo: Path) -> None:
    async def both() -> list[dict[str, Any]]:
        lifecycle = running_host.host.lifecycle
        spawns = [lifecycle.spawn(worktree_spawn(repo, name, "sleep", "600")) for name in ("left", "right")]
        return [answer.wire() for answer in await asyncio.gather(*spawns)]

    spawned = running_host.call(both())

    assert sorted(agent["branch"] for agent in spawned) == ["wardian/left", "wardian/right"]
    folders = {agent["worktree_folder"] for agent in spawned}
    assert len(folders) == 2 and all(Path(folder).is_dir() for folder in folders)
    ports = {agent["worktree_made"]["worktree"]["port_base"] for agent in spawned}
    assert len(ports) == 2


def test_joining_a_worktree_of_another_repository_is_refused_before_the_stop(
    running_host: InProcessHost, repo: Path, tmp_path: Path
) -> None:
    spawned = spawn_in_worktree(running_host, repo, "owner", "sleep", "600")
    other = new_repository(tmp_path / "other")
    spawn(running_host, other, "stranger", "sleep", "600")
    worktrees = running_host.host.lifecycle.worktrees

    with pytest.raises(WardianError) as refused:
        worktrees.joinable(spawned["worktree"], "stranger")

    assert refused.value.code == "usage" and refused.value.details["worktree"] == spawned["worktree"]
    assert running_host.host.registry.resolve("stranger").is_alive
