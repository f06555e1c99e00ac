"""The commit-msg hook: subjects over 72 characters are refused, and pre-commit runs it."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "commit_msg_check.py"
check = load_script("commit_msg_check")


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("settings: edit settings.toml with tomlkit\n\nWhy, at length.\n", "settings: edit settings.toml with tomlkit"),
        ("# Please enter the commit message\n\n  \nhost: keep agents  \n", "host: keep agents"),
        ("\n# only comments\n", ""),
        ("# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n", ""),
    ],
)
def test_the_subject_is_the_first_line_git_keeps(message: str, expected: str) -> None:
    assert check.subject(message) == expected


def test_72_characters_pass_and_73_are_refused_with_the_count() -> None:
    assert check.problem("x" * 72 + "\n\n" + "a long body line " * 20) is None
    assert check.problem("é" * 72) is None  # characters, not bytes
    refusal = check.problem("x" * 73 + "\n")
    assert refusal is not None and "73 characters, over 72" in refusal and "body" in refusal


def test_the_hook_exits_non_zero_on_a_long_subject(tmp_path: Path) -> None:
    message = tmp_path / "COMMIT_EDITMSG"
    runs = {}
    for name, text in {"short": "docs: name no files outside\n", "long": "docs: " + "word " * 20 + "\n"}.items():
        message.write_text(text, encoding="utf-8")
        runs[name] = subprocess.run([sys.executable, SCRIPT, message], capture_output=True, text=True, timeout=30)
    assert (runs["short"].returncode, runs["short"].stderr) == (0, "")
    assert runs["long"].returncode == 1
    assert "105 characters, over 72"  # the trailing space is not counted in runs["long"].stderr


def test_pre_commit_installs_and_runs_it_at_commit_msg() -> None:
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert re.search(r"^default_install_hook_types: \[.*\bcommit-msg\b.*\]$", config, re.MULTILINE)
    hook = config[config.index("- id: commit-subject") :]
    assert "entry: .venv/bin/python scripts/commit_msg_check.py" in hook
    assert re.search(r"^\s+stages: \[commit-msg\]$", hook, re.MULTILINE)


def _commit(repo: Path, subject: str) -> None:
    (repo / "file").write_text(subject, encoding="utf-8")
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "-C", str(repo), "add", "file"], check=True)
    subprocess.run(["git", "-C", str(repo), *identity, "commit", "-q", "-m", subject], check=True)


def test_the_branch_check_refuses_a_long_subject_made_after_the_base_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, "old: " + "x" * 80)  # before the base: history keeps it
    base = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True)
    monkeypatch.setattr(check, "ROOT", tmp_path)
    _commit(tmp_path, "fits: a short subject")
    assert check.branch_problems(base.stdout.strip()) == []
    _commit(tmp_path, "long: " + "y" * 70)
    (refusal,) = check.branch_problems(base.stdout.strip())
    assert "76 characters, over 72" in refusal and "long: yyy" in refusal


def test_a_clean_clone_checks_the_commits_after_the_base_although_it_tracks_its_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    _commit(origin, "old: " + "x" * 80)
    base = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"], capture_output=True, text=True)
    _commit(origin, "long: " + "y" * 70)
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)  # CI's checkout
    (clone / "base").write_text(base.stdout, encoding="utf-8")
    monkeypatch.setattr(check, "ROOT", clone)
    monkeypatch.setattr(check, "BASE_FILE", clone / "base")

    assert check.check_branch() == 1  # the clone's upstream is its HEAD: the base file decides


def test_dev_check_runs_the_branch_check() -> None:
    argv = load_script("dev").checks()["commit subjects"]
    assert [str(part) for part in argv[1:]] == [str(ROOT / "scripts" / "commit_msg_check.py"), "--branch"]
    assert (ROOT / ".ci" / "subjects-checked-since").read_text().split()[0] in subprocess.run(
        ["git", "-C", str(ROOT), "rev-list", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
