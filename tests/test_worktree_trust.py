"""Asking once whether a repository's own worktree commands may run: the CLI's side."""

import io
import os
from pathlib import Path

import pytest
from git_repos import configure_user_git, git, new_repository

from wardian_core.worktrees import trust
from wardian_host.cli import worktree_trust


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    configure_user_git(Path(os.environ["HOME"]))
    repo = new_repository(tmp_path / "project", {"README.md": "hello\n", ".wardian/worktree.toml": 'setup = "make"\n'})
    (repo / "app").mkdir()
    return repo


def answering(monkeypatch: pytest.MonkeyPatch, typed: str) -> None:
    monkeypatch.setattr(worktree_trust, "_interactive", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))


def test_a_terminal_is_asked_once_and_the_answer_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], wardian_home: Path, repo: Path
) -> None:
    answering(monkeypatch, "y\n")
    worktree_trust.settle(repo / "app", trust_repo=False)
    assert "setup: make" in capsys.readouterr().err
    assert trust.decision(wardian_home, repo) is True

    answering(monkeypatch, "")  # asked again, it would read an empty answer: no
    worktree_trust.settle(repo, trust_repo=False)
    assert capsys.readouterr().err == "" and trust.decision(wardian_home, repo) is True


def test_a_no_is_kept_and_trust_repo_overrides_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], wardian_home: Path, repo: Path
) -> None:
    answering(monkeypatch, "n\n")
    worktree_trust.settle(repo, trust_repo=False)
    assert f"wardian agent worktree trust {repo}" in capsys.readouterr().err
    assert trust.decision(wardian_home, repo) is False
    worktree_trust.settle(repo, trust_repo=True)
    assert trust.decision(wardian_home, repo) is True


def test_nothing_is_asked_without_a_terminal_or_without_repository_commands(
    monkeypatch: pytest.MonkeyPatch, wardian_home: Path, repo: Path, tmp_path: Path
) -> None:
    worktree_trust.settle(repo, trust_repo=False)  # pytest's stdin is no terminal
    assert trust.decision(wardian_home, repo) is None

    plain = new_repository(tmp_path / "plain")
    answering(monkeypatch, "y\n")
    worktree_trust.settle(plain, trust_repo=False)
    assert trust.decision(wardian_home, plain) is None, "nothing of the repository's would run"
    git(plain, "status")
