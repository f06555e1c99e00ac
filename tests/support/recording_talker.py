"""A generic agent that prints what a test hands it, and the recording that keeps it (the
recording tests and the web view's replay test)."""

import os
import threading
import time
from pathlib import Path

from wardian_core import recording_format as fmt

TALKER = 'while :; do read -r word < "$1/in"; echo "said:$word"; echo ok > "$1/out"; done'


class Talker:
    """A generic agent that prints `said:WORD` for each word the test hands it through a FIFO, and
    answers through another once it printed: each step waits for the agent, not for a clock."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        os.mkfifo(folder / "in")
        os.mkfifo(folder / "out")

    def argv(self) -> list[str]:
        return ["--", "bash", "--norc", "--noprofile", "-c", TALKER, "talker", str(self.folder)]

    def say(self, word: str, limit: float = 20.0) -> None:
        def exchange() -> None:
            (self.folder / "in").write_text(word + "\n")
            (self.folder / "out").read_text()

        step = threading.Thread(target=exchange, daemon=True)  # a dead agent must fail the test, not hang it
        step.start()
        step.join(limit)
        assert not step.is_alive(), f"the agent did not print {word!r} within {limit} s"


def recorded_output(home: Path, uuid: str) -> bytes:
    folder = fmt.folder(home / "agents" / uuid)
    return b"".join(record.payload for record in fmt.read(folder) if record.kind == fmt.OUTPUT)


def wait_recorded(home: Path, uuid: str, text: bytes, limit: float = 20.0) -> bytes:
    """The recording once it holds `text`: the server writes a piece as soon as it reads it from
    the PTY, a moment after the agent printed it."""
    deadline = time.monotonic() + limit
    while text not in (output := recorded_output(home, uuid)):
        assert time.monotonic() < deadline, f"{text!r} never recorded; recorded {output[-500:]!r}"
        time.sleep(0.02)
    return output
