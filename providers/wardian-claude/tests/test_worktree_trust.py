"""A worktree Wardian made is trusted in Claude's config exactly when its repository is."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from wardian_claude.trust import carry_to_worktree

IDENTITY = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t.invalid", "GIT_COMMITTER_NAME": "T"}


def git(folder: Path, *args: str) -> None:
    env = {**os.environ, **IDENTITY, "GIT_COMMITTER_EMAIL": "t@t.invalid"}
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def worktree(tmp_path: Path) -> tuple[Path, Path]:
    """(a repository, a linked worktree of it elsewhere)."""
    repository = tmp_path / "src" / "app"
    repository.mkdir(parents=True)
    git(repository, "init", "-q")
    git(repository, "commit", "-q", "--allow-empty", "-m", "first")
    linked = tmp_path / "wardian-home" / "worktrees" / "app" / "topic"
    git(repository, "worktree", "add", "-q", "-b", "topic", str(linked))
    return repository, linked


def config_trusting(tmp_path: Path, folder: Path | None) -> Path:
    config = tmp_path / ".claude.json"
    projects = {str(folder): {"hasTrustDialogAccepted": True}} if folder else {}
    config.write_text(json.dumps({"projects": projects}))
    return config


@pytest.mark.parametrize("trusted", ["repository", "above it"])
def test_a_worktree_of_a_trusted_repository_is_trusted(
    tmp_path: Path, worktree: tuple[Path, Path], trusted: str
) -> None:
    repository, linked = worktree
    config = config_trusting(tmp_path, repository if trusted == "repository" else repository.parent)

    assert carry_to_worktree(config, linked / "sub" / "folder") is True

    assert json.loads(config.read_text())["projects"][str(linked)] == {"hasTrustDialogAccepted": True}


def test_a_worktree_of_a_repository_never_trusted_is_left_to_ask(tmp_path: Path, worktree: tuple[Path, Path]) -> None:
    _, linked = worktree
    config = config_trusting(tmp_path, tmp_path / "elsewhere")

    assert carry_to_worktree(config, linked) is False
    assert str(linked) not in json.loads(config.read_text())["projects"]


def test_a_main_checkout_is_never_trusted_for_the_user(tmp_path: Path, worktree: tuple[Path, Path]) -> None:
    repository, _ = worktree
    config = config_trusting(tmp_path, repository.parent)

    assert carry_to_worktree(config, repository) is False
