#!/usr/bin/env python3
"""The commit-msg hook: a commit's subject says what changed in at most 72 characters.

    python3 scripts/commit_msg_check.py .git/COMMIT_EDITMSG   # the commit-msg hook
    python3 scripts/commit_msg_check.py --branch               # every commit since the base

`--branch` (a check `scripts/dev.py check` runs, so CI catches a commit made without the hook)
reads the subjects of the commits after the commit `.ci/subjects-checked-since` names (the last
one made before the rule was checked; older history keeps its longer subjects). Not after the
branch's upstream: CI's clean clone tracks the very commit it checks, so nothing would be read.

The story (why, figures, what was left) goes in the body, after a blank line. 72 is
where `git log --oneline`, `git shortlog` and most review tools stop showing a subject.
Standard library only: pre-commit runs it with the message file as its one argument.
"""

import subprocess
import sys
from pathlib import Path

MAX_SUBJECT = 72
# `git commit -v` puts the diff below this line; git drops it and everything after.
SCISSORS = "# ------------------------ >8 ------------------------"


def subject(message: str) -> str:
    """The first line git will keep: not blank, not a `#` comment (git strips those after the hook)."""
    for line in message.splitlines():
        if line == SCISSORS:
            break
        if line.strip() and not line.startswith("#"):
            return line.rstrip()
    return ""


def problem(message: str) -> str | None:
    """Why the message is refused, or None when its subject fits."""
    line = subject(message)
    if len(line) <= MAX_SUBJECT:
        return None
    return (
        f"commit subject is {len(line)} characters, over {MAX_SUBJECT}: {line[:MAX_SUBJECT]}...\n"
        "Say what changed in the subject; move the why and any figures to the body, after a blank line."
    )


ROOT = Path(__file__).resolve().parents[1]
BASE_FILE = ROOT / ".ci" / "subjects-checked-since"


def _git(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, check=False)


def branch_base() -> str:
    """The commit the base file names: every commit after it is checked."""
    return BASE_FILE.read_text(encoding="utf-8").split()[0]


def new_subjects(base: str) -> list[tuple[str, str]]:
    """(short hash, subject) of each commit after `base`; a clone too shallow to hold `base`
    checks the commits it has."""
    known = _git("cat-file", "-e", f"{base}^{{commit}}").returncode == 0
    listing = _git("log", "--format=%h%x00%s", f"{base}..HEAD" if known else "HEAD")
    return [(short, text) for short, _, text in (line.partition("\0") for line in listing.stdout.splitlines())]


def branch_problems(base: str) -> list[str]:
    return [f"{short}: {refusal}" for short, text in new_subjects(base) if (refusal := problem(text))]


def check_branch() -> int:
    refusals = branch_problems(branch_base())
    for refusal in refusals:
        print(refusal, file=sys.stderr)
    return 1 if refusals else 0


def main(argv: list[str]) -> int:
    if argv == ["--branch"]:
        return check_branch()
    if len(argv) != 1:
        print("usage: commit_msg_check.py MESSAGE_FILE | --branch", file=sys.stderr)
        return 2
    refusal = problem(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if refusal is None:
        return 0
    print(refusal, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
