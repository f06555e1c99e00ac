"""A worktree Wardian made is trusted in Claude's config exactly when its repository is."""

import json
from pathlib import Path

import pytest

from wardian_claude.trust import carry_to_worktree
from wardian_core.provider.testing import repository_and_worktree


@pytest.fixture
def worktree(tmp_path: Path) -> tuple[Path, Path]:
    """(a repository, a linked worktree of it elsewhere)."""
    return repository_and_worktree(tmp_path)


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
