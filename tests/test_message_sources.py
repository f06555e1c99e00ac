"""Every message source ends: a file, standard input, a FIFO or a device is read up to the message
limit, and one byte more is `message_too_large` — never a `MemoryError`, never a process that
grows until the kernel kills it. Nothing is sent: no host runs, and none is needed to refuse."""

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wardian_core.errors import WardianError
from wardian_core.message_reading import MESSAGE_MAX_BYTES, read_bounded

WARDIAN = str(Path(sys.executable).parent / "wardian")
# One command of each kind that reads a message (`send`, `ask`, `reply`), before its source flag.
COMMANDS = {
    "send": ["send", "--to", "somebody"],
    "ask": ["ask", "somebody"],
    "reply": ["reply", "ask_0123456789abcdef", "--status", "done"],
}


class CountingSource:
    """An endless source that counts what was taken from it."""

    def __init__(self) -> None:
        self.taken = 0

    def read(self, size: int = -1) -> bytes:
        assert size > 0, "an endless source read whole never ends"
        self.taken += size
        return b"y" * size


def refusal(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in completed.stderr, completed.stderr
    assert completed.returncode == 1, completed.stderr
    error: dict[str, Any] = json.loads(completed.stderr)["error"]
    return error


def wardian(args: list[str], stdin: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WARDIAN, *args], capture_output=True, text=True, timeout=120, stdin=stdin)


def test_an_endless_source_is_read_one_byte_past_the_limit_and_refused() -> None:
    source = CountingSource()

    with pytest.raises(WardianError) as refused:
        read_bounded(source, "the source", limit=10)  # type: ignore[arg-type]  # only `read` is used

    assert source.taken == 11
    assert refused.value.code == "message_too_large" and refused.value.hint
    assert refused.value.details == {"source": "the source", "limit_bytes": 10, "size_bytes_at_least": 11}


def test_a_source_at_the_limit_is_read_whole() -> None:
    import io

    assert read_bounded(io.BytesIO(b"x" * 10), "the source", limit=10) == b"x" * 10


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_that_never_ends_is_message_too_large(command: str, wardian_home: Path) -> None:
    error = refusal(wardian([*COMMANDS[command], "--file", "/dev/zero"], stdin=subprocess.DEVNULL))

    assert error["code"] == "message_too_large" and "--file" in error["hint"]
    assert error["details"] == {"source": "/dev/zero", "limit_bytes": MESSAGE_MAX_BYTES} | {
        "size_bytes_at_least": MESSAGE_MAX_BYTES + 1
    }


def test_standard_input_from_an_endless_pipe_is_message_too_large(wardian_home: Path) -> None:
    endless = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        error = refusal(wardian([*COMMANDS["send"], "--stdin"], stdin=endless.stdout))
    finally:
        endless.kill()
        endless.wait()

    assert error["code"] == "message_too_large"
    assert error["details"]["source"] == "standard input"


@pytest.fixture
def endless_fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO whose writer writes until its reader leaves."""
    fifo = tmp_path / "endless.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as pipe:  # blocks until the reader opens it
            try:
                while True:
                    pipe.write(b"y" * 65536)
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    yield fifo
    writer.join(timeout=60)
    assert not writer.is_alive()


def test_a_fifo_that_never_closes_is_message_too_large(endless_fifo: Path, wardian_home: Path) -> None:
    error = refusal(wardian([*COMMANDS["ask"], "--file", str(endless_fifo)], stdin=subprocess.DEVNULL))

    assert error["code"] == "message_too_large"
    assert error["details"]["source"] == str(endless_fifo)


def test_a_message_argument_over_the_limit_is_refused_before_the_host_is_looked_for() -> None:
    from wardian_host.answers.messages import read_message

    with pytest.raises(WardianError) as refused:
        read_message("a" * (MESSAGE_MAX_BYTES + 1), False, None)

    assert refused.value.code == "message_too_large" and refused.value.details["source"] == "MESSAGE"
