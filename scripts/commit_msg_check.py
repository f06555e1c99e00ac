#!/usr/bin/env python3
"""The commit-msg hook: a commit's subject says what changed in at most 72 characters.

    python3 scripts/commit_msg_check.py .git/COMMIT_EDITMSG

The story (why, figures, what was left) goes in the body, after a blank line. 72 is
where `git log --oneline`, `git shortlog` and most review tools stop showing a subject.
Standard library only: pre-commit runs it with the message file as its one argument.
"""

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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: commit_msg_check.py MESSAGE_FILE", file=sys.stderr)
        return 2
    refusal = problem(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if refusal is None:
        return 0
    print(refusal, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
