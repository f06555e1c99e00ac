"""A scripted agent that answers `wardian ask` at once: for tests and benchmarks of Wardian's
own plumbing (never of a provider's behaviour).

Run as `python -m wardian_host.testing.answering_agent` in an agent's terminal. It reads what
is typed; for each request id (`ask_` + 16 hex) it has not answered, it runs
`wardian reply <id> --status S --stdin` with `answered: <first line of the question>` and
prints `replied <id> exit <code>` (the reply's JSON or error follows). A question may steer
it: `STATUS:blocked` / `STATUS:failed` pick the status, `SILENT` makes it not reply.
"""

import re
import subprocess
import sys

from wardian_core.asks import REQUEST_ID_PATTERN

_STATUS = re.compile(r"STATUS:(done|blocked|failed)")
_PASTE_MARKS = re.compile(r"\x1b\[20[01]~")
READY_PROMPT = "answering> "


def _question(lines: list[str]) -> str:
    text = _PASTE_MARKS.sub("", "\n".join(lines)).strip()
    return text.splitlines()[0] if text else ""


def _answer(request_id: str, lines: list[str]) -> None:
    text = "\n".join(lines)
    if "SILENT" in text:
        print(f"silent on {request_id}", flush=True)
        return
    status = _STATUS.search(text)
    done = subprocess.run(
        ["wardian", "reply", request_id, "--status", status.group(1) if status else "done", "--stdin"],
        input=f"answered: {_question(lines)}".encode(),
        capture_output=True,
    )
    print(f"replied {request_id} exit {done.returncode}", flush=True)
    sys.stdout.write((done.stdout or done.stderr).decode(errors="replace"))
    sys.stdout.flush()


def main() -> None:
    answered: set[str] = set()
    pending: list[str] = []
    print(READY_PROMPT, end="", flush=True)
    for line in sys.stdin:
        pending.append(line.rstrip("\n"))
        for request_id in REQUEST_ID_PATTERN.findall(line):
            if request_id not in answered:
                answered.add(request_id)
                _answer(request_id, pending)
                pending = []
        print(READY_PROMPT, end="", flush=True)


if __name__ == "__main__":
    main()
