"""Claude Code spawned with `--worktree` through `wardian`: it works in its own git worktree.

The workspace is a git repository the user's Claude trusts (the real-CLI fixture's). Claude keys
its trust by project folder; a worktree Wardian made is another folder, so it must be trusted
there as in the workspace, and a file its shell tool writes lands in the worktree, never in the
workspace.
"""

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.real_cli

WAIT = "60s"
IDENTITY = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@t.invalid",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@t.invalid",
}


def committed_repository(folder: Path) -> None:
    env = {**os.environ, **IDENTITY}
    (folder / "CLAUDE.md").write_text("Answer briefly.\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", "-C", str(folder), *args], check=True, env=env, capture_output=True)


def test_a_worktree_agent_writes_in_its_worktree_not_in_the_workspace(
    wardian: Callable[..., Any], claude_cli: Any
) -> None:
    workspace = claude_cli.workspace
    committed_repository(workspace)
    env = {**claude_cli.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude_cli.executable)}
    env.pop("HOME", None)
    spawn = ("agent", "spawn", "--provider", "claude", "--class", "Coder", "--name", "wt", "--workspace")
    answer = wardian(*spawn, str(workspace), "--worktree", env=env).json()
    folder = Path(answer["agent"]["worktree_folder"])
    assert folder != workspace and (folder / "CLAUDE.md").is_file()

    waited = wardian("agent", "wait", "wt", "--until", "idle", "--timeout", WAIT)
    if waited.returncode != 0:
        rows = wardian("agent", "screen", "wt").json()["screen"]["rows"]
        pytest.fail(f"wt did not become idle in its worktree: {waited.stderr}\nscreen:\n" + "\n".join(rows))
    events = wardian("agent", "watch", "wt").json()["watch"]["events"]
    assert "action_required" not in [event["to"] for event in events], "Claude asked to trust the worktree"

    wardian("send", "MOCK_TOOL:echo made-here > made.txt ECHO:wt1", "--to", "wt").json()
    wardian("agent", "wait", "wt", "--until", "action_required", "--timeout", WAIT).json()
    wardian("send", "--approval", "accept", "--to", "wt").json()
    wardian("agent", "wait", "wt", "--until", "idle", "--timeout", WAIT).json()

    assert (folder / "made.txt").read_text() == "made-here\n"
    assert not (workspace / "made.txt").exists()
    claude_cli.assert_only_model_server_was_called()
